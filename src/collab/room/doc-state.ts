// A document held encoded: what a room needs to serve sync and judge updates without a Y.Doc,
// which costs about 14 times the document's encoded size. It holds
// - the served state as a few merged updates plus a short tail of recent ones (served-parts.ts);
// - the state vector of the served state and, once something is deleted, its deleted ranges
//   (DeleteIndex), to tell new from known;
// - updates held back because something they build on is missing, exactly as a Y.Doc keeps
//   pending structs: never served, never counted in the state vector, taken in once the gap fills.
import * as encoding from 'lib0/encoding'
import * as Y from 'yjs'
import { scanUpdate, STRUCT_STRIDE, UpdateShape } from '../../protocol/update-scan.js'
import { DeleteIndex } from './delete-index.js'
import { ServedParts } from './served-parts.js'

/** What a room does with an update: nothing new in it, serve it, or hold it for its dependencies. */
export type Verdict = 'unchanged' | 'ready' | 'held'

/** what a Uint8Array costs beyond its bytes (object, backing store header), roughly */
const ARRAY_OVERHEAD = 96

/** Scratch shape for held updates re-judged while the caller's shape is still in use. */
const heldShape = new UpdateShape()

export class DocState {
  /** the served state: merged levels and a tail of recent updates */
  private readonly served = new ServedParts()
  private readonly clocks = new Map<number, number>()
  /**
   * The served deleted ranges, built from the served state on the first update that deletes
   * something: a document only read (most loaded documents) never pays for it.
   */
  private deletedIndex: DeleteIndex | null = null
  private held: Uint8Array[] = []
  private heldBytes = 0
  /** counts changes to the served state (a paced sync checks whether its peer must catch up) */
  version = 0
  /** deleted ranges added since the last compaction: without any, collecting garbage frees nothing */
  deletionsSinceCompaction = 0

  /**
   * Loads a stored document: a snapshot (trusted, written by a room) and the updates since, merged
   * as they would have been served (in steps of at most 95 updates and 8 MB: a log of 100,000
   * updates merged at once took Y.mergeUpdates minutes).
   */
  static load(snapshot: Uint8Array | null, updates: Uint8Array[]): DocState {
    const s = new DocState()
    if (snapshot && snapshot.length > 2) {
      scanUpdate(snapshot, heldShape)
      if (s.integrates(heldShape)) s.take(snapshot, heldShape)
      else s.takeLegacySnapshot(snapshot)
      s.deletionsSinceCompaction = 0 // a snapshot is collected already
    }
    const shape = new UpdateShape()
    for (const u of updates) {
      try {
        scanUpdate(u, shape)
      } catch {
        continue // never stored: the room refuses malformed updates before writing
      }
      s.accept(u, shape)
    }
    return s
  }

  /**
   * A snapshot written by a room that held a Y.Doc carries the pending structs it held, merged in
   * with a gap: served apart from them, they are held as they were.
   */
  private takeLegacySnapshot(snapshot: Uint8Array): void {
    const doc = new Y.Doc()
    Y.applyUpdate(doc, snapshot)
    const store = doc.store as unknown as { pendingStructs: { update: Uint8Array } | null; pendingDs: Uint8Array | null }
    const pending = [store.pendingStructs?.update, store.pendingDs].filter((u): u is Uint8Array => !!u)
    store.pendingStructs = null
    store.pendingDs = null
    const served = Y.encodeStateAsUpdate(doc)
    doc.destroy()
    scanUpdate(served, heldShape)
    this.take(served, heldShape)
    for (const u of pending) {
      this.held.push(u)
      this.heldBytes += u.length
    }
  }

  /** encoded bytes held (served and held back), plus what the indexes cost */
  get bytes(): number {
    const arrays = this.served.arrays + this.held.length
    return this.served.bytes + this.heldBytes + arrays * ARRAY_OVERHEAD + (this.deletedIndex?.size ?? 0) * 16 + this.clocks.size * 40
  }

  /** updates held back for a missing dependency */
  get heldCount(): number {
    return this.held.length
  }

  /** The servable clock of `client` (0 when it has written nothing here). */
  clock(client: number): number {
    return this.clocks.get(client) ?? 0
  }

  /**
   * Judges an update whose scan filled `shape`, and takes it in: 'unchanged' when it adds no
   * struct and no deletion (nothing to store or send), 'ready' when it is served from now on,
   * 'held' when it waits for a dependency. Held updates that it unblocks are served too.
   */
  accept(update: Uint8Array, shape: UpdateShape): Verdict {
    if (!this.adds(shape)) return 'unchanged'
    if (!this.integrates(shape)) {
      if (this.held.some((h) => sameBytes(h, update))) return 'unchanged'
      this.held.push(update)
      this.heldBytes += update.length
      return 'held'
    }
    this.take(update, shape)
    if (this.held.length > 0) this.releaseHeld()
    return 'ready'
  }

  /** Whether the update has a struct past the served clocks or deletes something not deleted. */
  adds(shape: UpdateShape): boolean {
    const r = shape.ranges
    for (let i = 0; i < r.length; i += 3) if (r[i + 2]! > this.clock(r[i]!)) return true
    const d = shape.deletes
    if (d.length === 0) return false
    const deleted = this.deleted()
    for (let i = 0; i < d.length; i += 3) if (!deleted.covers(d[i]!, d[i + 1]!, d[i + 2]!)) return true
    return false
  }

  private deleted(): DeleteIndex {
    if (this.deletedIndex) return this.deletedIndex
    const index = new DeleteIndex()
    const served = new UpdateShape()
    for (const part of this.parts()) {
      scanUpdate(part, served)
      const d = served.deletes
      for (let i = 0; i < d.length; i += 3) index.add(d[i]!, d[i + 1]!, d[i + 2]!)
    }
    return (this.deletedIndex = index)
  }

  /**
   * Whether every struct can be integrated, in some order, as Yjs would: each starts at or before
   * its client's clock (no gap) and every id it needs of another client is below that client's
   * clock, counting what the update's own earlier structs provide. A struct already held is
   * skipped, as Yjs skips it.
   */
  private integrates(shape: UpdateShape): boolean {
    const s = shape.structs
    if (s.length === 0) return true
    if (oneClient(s)) return this.integratesOneClient(s)
    const local = new Map<number, number>()
    const at = (c: number) => local.get(c) ?? this.clock(c)
    // one run per client (a v1 update groups structs by client): its next struct's offset
    const runs: number[] = []
    for (let i = 0; i < s.length; i += STRUCT_STRIDE) if (i === 0 || s[i] !== s[i - STRUCT_STRIDE]) runs.push(i)
    const ends = runs.slice(1).concat(s.length)
    let left = runs.length
    for (let progress = true; progress && left > 0; ) {
      progress = false
      for (let k = 0; k < runs.length; k++) {
        let i = runs[k]!
        const end = ends[k]!
        if (i === end) continue
        for (; i < end; i += STRUCT_STRIDE) {
          const client = s[i]!
          const clock = s[i + 1]!
          const next = clock + s[i + 2]!
          const state = at(client)
          if (next <= state) continue
          if (clock > state) break
          if (s[i + 3]! >= 0 && s[i + 4]! >= at(s[i + 3]!)) break
          if (s[i + 5]! >= 0 && s[i + 6]! >= at(s[i + 5]!)) break
          local.set(client, next)
        }
        if (i !== runs[k]) progress = true
        runs[k] = i
        if (i === end) left--
      }
    }
    return left === 0
  }

  /** integrates() for the common update, one client's structs (typing): no allocation. */
  private integratesOneClient(s: readonly number[]): boolean {
    let state = this.clock(s[0]!)
    for (let i = 0; i < s.length; i += STRUCT_STRIDE) {
      const clock = s[i + 1]!
      const next = clock + s[i + 2]!
      if (next <= state) continue
      if (clock > state) return false
      if (s[i + 3]! >= 0 && s[i + 4]! >= this.clock(s[i + 3]!)) return false
      if (s[i + 5]! >= 0 && s[i + 6]! >= this.clock(s[i + 5]!)) return false
      state = next
    }
    return true
  }

  /** Serves an update judged integrable. */
  private take(update: Uint8Array, shape: UpdateShape): void {
    const r = shape.ranges
    for (let i = 0; i < r.length; i += 3) if (r[i + 2]! > this.clock(r[i]!)) this.clocks.set(r[i]!, r[i + 2]!)
    const d = shape.deletes
    const deleted = this.deletedIndex
    for (let i = 0; i < d.length; i += 3) {
      // without an index yet, every deletion counts as new (it is built from the state, with them)
      if (deleted?.covers(d[i]!, d[i + 1]!, d[i + 2]!)) continue
      deleted?.add(d[i]!, d[i + 1]!, d[i + 2]!)
      this.deletionsSinceCompaction++
    }
    this.served.push(update)
    this.version++
  }

  /** Held updates whose dependencies arrived are served, until none moves. */
  private releaseHeld(): void {
    for (let moved = true; moved; ) {
      moved = false
      const still: Uint8Array[] = []
      for (const u of this.held) {
        scanUpdate(u, heldShape)
        if (!this.adds(heldShape)) {
          this.heldBytes -= u.length
          moved = true
        } else if (this.integrates(heldShape)) {
          this.heldBytes -= u.length
          this.take(u, heldShape)
          moved = true
        } else still.push(u)
      }
      this.held = still
    }
  }

  /** The served state as it is held, in the order it was taken (each part integrates after the ones before). */
  parts(): Uint8Array[] {
    return this.served.parts()
  }

  /** Bytes of the served state (what a first sync sends). */
  get servedBytes(): number {
    return this.served.bytes
  }

  /** The whole served state as one update (merges everything into one level). */
  full(): Uint8Array {
    return this.served.full()
  }

  /** What a peer with `stateVector` lacks (throws on a malformed state vector). */
  diff(stateVector: Uint8Array): Uint8Array {
    return this.served.diff(stateVector)
  }

  /** What a peer with `stateVector` lacks, part by part as held (throws on a malformed state vector). */
  diffParts(stateVector: Uint8Array): Uint8Array[] {
    return this.served.diffParts(stateVector)
  }

  /** The served state vector, encoded as Yjs encodes one. */
  stateVector(): Uint8Array {
    const e = encoding.createEncoder()
    encoding.writeVarUint(e, this.clocks.size)
    for (const [client, clock] of [...this.clocks].sort((a, b) => b[0] - a[0])) {
      encoding.writeVarUint(e, client)
      encoding.writeVarUint(e, clock)
    }
    return encoding.toUint8Array(e)
  }

  /** The served parts for a fold beside the room (compaction), kept unmerged until replacePrefix or unpin. */
  pinParts(): Uint8Array[] {
    return this.served.pin()
  }

  unpin(): void {
    this.served.unpin()
  }

  /** Replaces the parts pinParts() returned by `folded`, if they are still the first (ServedParts.replacePrefix). */
  replacePrefix(from: readonly Uint8Array[], folded: Uint8Array): boolean {
    return this.served.replacePrefix(from, folded)
  }

  /** Every held-back update, for a Y.Doc that must show what a live document would hold. */
  heldUpdates(): readonly Uint8Array[] {
    return this.held
  }
}

/** Whether every struct is of one client (a client listed twice, apart, is not trusted to be). */
function oneClient(s: readonly number[]): boolean {
  for (let i = STRUCT_STRIDE; i < s.length; i += STRUCT_STRIDE) if (s[i] !== s[0]) return false
  return true
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b)
