// The attribution index of one document: for every log entry that changed something, who and when,
// and which Yjs id ranges (client, clock, len) it inserted and deleted for the first time. Lookups
// answer "who inserted / deleted this id" by binary search over per-client segment lists.
// What must stay true: an id range is attributed to the first entry that integrated it, so a
// range belongs to at most one insert entry and one delete entry.

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

/** What a lookup answers: the entry (null when the id predates the retained history) up to `until`. */
export interface Hit {
  entry: IndexEntry | null
  /** the answer holds for clocks up to (excluding) this one */
  until: number
}

class Segments {
  starts: number[] = []
  ends: number[] = []
  entries: IndexEntry[] = []
  private sorted = true

  add(start: number, len: number, entry: IndexEntry): void {
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
    return { entry: null, until: next }
  }
}

const NONE: Hit = { entry: null, until: Infinity }

export class AttributionIndex {
  readonly entries: IndexEntry[] = []
  private inserts = new Map<number, Segments>()
  private deletes = new Map<number, Segments>()

  add(entry: IndexEntry): void {
    this.entries.push(entry)
    this.addSegments(entry)
  }

  private addSegments(entry: IndexEntry): void {
    for (const [client, clock, len] of entry.ins) segs(this.inserts, client).add(clock, len, entry)
    for (const [client, clock, len] of entry.del) segs(this.deletes, client).add(clock, len, entry)
  }

  insertOf(client: number, clock: number): Hit {
    return this.inserts.get(client)?.find(clock) ?? NONE
  }

  deleteOf(client: number, clock: number): Hit {
    return this.deletes.get(client)?.find(clock) ?? NONE
  }

  /** Drops every entry with seq <= seq (history compacted into a base); ids they held become unattributed. */
  trimThrough(seq: number): void {
    const keep = this.entries.filter((e) => e.seq > seq)
    this.entries.length = 0
    this.inserts.clear()
    this.deletes.clear()
    for (const e of keep) this.add(e)
  }
}

function segs(map: Map<number, Segments>, client: number): Segments {
  let s = map.get(client)
  if (!s) map.set(client, (s = new Segments()))
  return s
}
