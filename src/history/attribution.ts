// The attribution index of one document: for every log entry that changed something, who and when,
// and which Yjs id ranges (client, clock, len) it inserted and deleted for the first time. Lookups
// answer "who inserted / deleted this id" by binary search over per-client segment lists.
// What must stay true: an id range is attributed to the first entry that integrated it, so a
// range belongs to at most one insert entry and one delete entry.
// Storage is columnar (plain number arrays, unboxed doubles) because a document may hold hundreds
// of thousands of entries; objects are made only for the entries a response needs.

export type Range = readonly [client: number, clock: number, len: number]

export interface IndexEntry {
  seq: number
  /** server time, epoch ms */
  at: number
  user: string
  /** countable units (characters, embeds, elements, array values) inserted / deleted */
  inserted: number
  deleted: number
  ins: Range[]
  del: Range[]
}

/** What a lookup answers: the entry's position (-1 when the id predates the retained history) up to `until`. */
export interface Hit {
  entry: number
  /** the answer holds for clocks up to (excluding) this one */
  until: number
}

class Segments {
  starts: number[] = []
  ends: number[] = []
  entries: number[] = []
  private sorted = true

  add(start: number, len: number, entry: number): void {
    const n = this.starts.length
    if (n > 0 && start < this.starts[n - 1]!) this.sorted = false
    this.starts.push(start)
    this.ends.push(start + len)
    this.entries.push(entry)
  }

  private sort(): void {
    const order = this.starts.map((_, i) => i).sort((a, b) => this.starts[a]! - this.starts[b]!)
    this.starts = order.map((i) => this.starts[i]!)
    this.ends = order.map((i) => this.ends[i]!)
    this.entries = order.map((i) => this.entries[i]!)
    this.sorted = true
  }

  find(clock: number): Hit {
    if (!this.sorted) this.sort()
    // last segment starting at or before clock
    let lo = 0
    let hi = this.starts.length - 1
    let at = -1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (this.starts[mid]! <= clock) {
        at = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    if (at >= 0 && clock < this.ends[at]!) return { entry: this.entries[at]!, until: this.ends[at]! }
    const next = at + 1 < this.starts.length ? this.starts[at + 1]! : Infinity
    return { entry: -1, until: next }
  }
}

const NONE: Hit = { entry: -1, until: Infinity }

export class AttributionIndex {
  // one slot per entry
  private seqs: number[] = []
  private ats: number[] = []
  private userIds: number[] = []
  private insertedCounts: number[] = []
  private deletedCounts: number[] = []
  /** the entry's ranges are rangeStart[i] .. rangeStart[i + 1] in the range columns, inserts first */
  private rangeStart: number[] = [0]
  private insCounts: number[] = []
  // one slot per range
  private clients: number[] = []
  private clocks: number[] = []
  private lens: number[] = []

  private users: string[] = []
  private userIndex = new Map<string, number>()
  private inserts = new Map<number, Segments>()
  private deletes = new Map<number, Segments>()

  get size(): number {
    return this.seqs.length
  }

  add(e: IndexEntry): void {
    const i = this.seqs.length
    let u = this.userIndex.get(e.user)
    if (u === undefined) {
      u = this.users.length
      this.users.push(e.user)
      this.userIndex.set(e.user, u)
    }
    this.seqs.push(e.seq)
    this.ats.push(e.at)
    this.userIds.push(u)
    this.insertedCounts.push(e.inserted)
    this.deletedCounts.push(e.deleted)
    this.insCounts.push(e.ins.length)
    for (const [client, clock, len] of e.ins) this.addRange(this.inserts, i, client, clock, len)
    for (const [client, clock, len] of e.del) this.addRange(this.deletes, i, client, clock, len)
    this.rangeStart.push(this.clients.length)
  }

  private addRange(map: Map<number, Segments>, i: number, client: number, clock: number, len: number): void {
    this.clients.push(client)
    this.clocks.push(clock)
    this.lens.push(len)
    let s = map.get(client)
    if (!s) map.set(client, (s = new Segments()))
    s.add(clock, len, i)
  }

  seq(i: number): number {
    return this.seqs[i]!
  }

  at(i: number): number {
    return this.ats[i]!
  }

  user(i: number): string {
    return this.users[this.userIds[i]!]!
  }

  inserted(i: number): number {
    return this.insertedCounts[i]!
  }

  deleted(i: number): number {
    return this.deletedCounts[i]!
  }

  ranges(i: number, kind: 'ins' | 'del'): Range[] {
    const from = this.rangeStart[i]!
    const split = from + this.insCounts[i]!
    const [a, b] = kind === 'ins' ? [from, split] : [split, this.rangeStart[i + 1]!]
    const out: Range[] = []
    for (let r = a; r < b; r++) out.push([this.clients[r]!, this.clocks[r]!, this.lens[r]!])
    return out
  }

  entry(i: number): IndexEntry {
    return {
      seq: this.seq(i),
      at: this.at(i),
      user: this.user(i),
      inserted: this.inserted(i),
      deleted: this.deleted(i),
      ins: this.ranges(i, 'ins'),
      del: this.ranges(i, 'del'),
    }
  }

  *entries(): Generator<IndexEntry> {
    for (let i = 0; i < this.size; i++) yield this.entry(i)
  }

  insertOf(client: number, clock: number): Hit {
    return this.inserts.get(client)?.find(clock) ?? NONE
  }

  deleteOf(client: number, clock: number): Hit {
    return this.deletes.get(client)?.find(clock) ?? NONE
  }
}
