// How a room holds its served state (doc-state.ts decides what is served): a few merged updates,
// the levels, older and larger first, plus a short tail of recent updates. The tail is merged into
// a level in batches and levels of similar size are merged with each other, so no update pays for
// a full merge and each byte is merged O(log n) times; a fold beside the room (compaction) can pin
// the leading levels and later replace them with its result.
import * as Y from 'yjs'

/**
 * Tail updates merged into a level at once: a count drawn from [MIN_TAIL, 2 MIN_TAIL) at each
 * merge, so rooms that got busy together (a thousand opened at once) do not all merge in the same
 * turn (a fixed count put the p99 of 1,000 rooms under load at twice the base's).
 */
const MIN_TAIL = 48
/** A level is merged into the one before it once it is at least this fraction of its size. */
const LEVEL_RATIO = 4
/**
 * No merge in the event loop makes a level larger than this: a merge holds its inputs, the
 * encoder's chunks and the result at once (about 3x its size), so a 50 MB document merged whole
 * took 150 MB for a moment. Past it a document is served as several levels of this size.
 */
const LEVEL_MAX_BYTES = 8 * 1024 * 1024

const EMPTY = Uint8Array.of(0, 0)

export class LeveledUpdates {
  private levels: Uint8Array[] = []
  private tail: Uint8Array[] = []
  private tailCap = drawTailCap()
  private tailBytes = 0
  private levelBytes = 0
  /** leading levels a fold (compaction) works from: never merged until it ends (see pin) */
  private pinned = 0

  /** encoded bytes of the served state */
  get bytes(): number {
    return this.levelBytes + this.tailBytes
  }

  /** how many arrays hold it (each costs a little beyond its bytes) */
  get arrays(): number {
    return this.levels.length + this.tail.length
  }

  /** An update that integrates after everything held (doc-state.ts judged it). */
  push(update: Uint8Array): void {
    this.tail.push(update)
    this.tailBytes += update.length
    // By count only: merging large updates with each other saves nothing and leaves the allocator
    // holding the merge's copies (a 50 MB log merged 8 MB at a time at load: 3.2x held, not 1.5x).
    if (this.tail.length >= this.tailCap) this.mergeTail()
  }

  /**
   * The tail (its oldest LEVEL_MAX_BYTES, at least one update) becomes a level; levels of similar
   * size are merged, up to LEVEL_MAX_BYTES.
   */
  private mergeTail(): void {
    if (this.tail.length === 0) return
    this.tailCap = drawTailCap()
    let n = 0
    for (let bytes = 0; n < this.tail.length && (n === 0 || bytes + this.tail[n]!.length <= LEVEL_MAX_BYTES); n++)
      bytes += this.tail[n]!.length
    const taken = this.tail.splice(0, n)
    const merged = taken.length === 1 ? taken[0]! : Y.mergeUpdates(taken)
    for (const u of taken) this.tailBytes -= u.length
    this.levels.push(merged)
    this.levelBytes += merged.length
    while (this.levels.length >= 2) {
      const last = this.levels[this.levels.length - 1]!
      const prev = this.levels[this.levels.length - 2]!
      if (this.levels.length - 2 < this.pinned) break
      if (last.length * LEVEL_RATIO < prev.length || prev.length + last.length > LEVEL_MAX_BYTES) break
      this.levels.splice(-2, 2, Y.mergeUpdates([prev, last]))
      this.levelBytes += this.levels[this.levels.length - 1]!.length - prev.length - last.length
    }
  }

  /** The parts as held, in the order they were taken (each integrates after the ones before). */
  parts(): Uint8Array[] {
    return this.tail.length === 0 ? this.levels.slice() : this.levels.concat(this.tail)
  }

  /** The whole state as one update (merges everything into one level). */
  full(): Uint8Array {
    const parts = this.parts()
    if (parts.length === 0) return EMPTY
    if (parts.length > 1 || this.tail.length > 0) {
      this.pinned = 0
      const one = parts.length === 1 ? parts[0]! : Y.mergeUpdates(parts)
      this.levels = [one]
      this.levelBytes = one.length
      this.tail = []
      this.tailBytes = 0
      this.tailCap = drawTailCap()
    }
    return this.levels[0]!
  }

  /** What a peer with `stateVector` lacks (throws on a malformed state vector). */
  diff(stateVector: Uint8Array): Uint8Array {
    if (this.tail.length > 1 && this.tailBytes <= LEVEL_MAX_BYTES) this.mergeTail()
    const parts = this.diffParts(stateVector)
    if (parts.length === 0) return EMPTY
    return parts.length === 1 ? parts[0]! : Y.mergeUpdates(parts)
  }

  /** What a peer with `stateVector` lacks, part by part as held (throws on a malformed state vector). */
  diffParts(stateVector: Uint8Array): Uint8Array[] {
    return this.parts().map((p) => Y.diffUpdate(p, stateVector))
  }

  /**
   * The parts, for a fold beside the room (compaction): the tail becomes levels as it is, and
   * these levels are not merged until replacePrefix or unpin, so the fold can replace them.
   */
  pin(): Uint8Array[] {
    if (this.tail.length > 0) {
      for (const u of this.tail) this.levels.push(u)
      this.levelBytes += this.tailBytes
      this.tail = []
      this.tailBytes = 0
    }
    this.pinned = this.levels.length
    return this.levels.slice()
  }

  unpin(): void {
    this.pinned = 0
  }

  /**
   * Replaces `from` (what pin() returned) by `folded`, the same document in one update (its
   * garbage collected or not), if they are still the first levels: what was served since stays
   * after it, merged on top of it later (an item collected here is a GC struct there, as in a
   * Y.Doc). False when they were merged meanwhile (a full()).
   */
  replacePrefix(from: readonly Uint8Array[], folded: Uint8Array): boolean {
    const k = from.length
    if (k === 0 || this.levels.length < k || from.some((p, i) => this.levels[i] !== p)) return false
    this.levels.splice(0, k, folded)
    this.levelBytes += folded.length - sum(from)
    this.pinned = 0
    return true
  }
}

function sum(arrays: readonly Uint8Array[]): number {
  let n = 0
  for (const a of arrays) n += a.length
  return n
}

function drawTailCap(): number {
  return MIN_TAIL + Math.floor(Math.random() * MIN_TAIL)
}
