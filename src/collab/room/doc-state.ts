// A document held encoded: what a room needs to serve sync and judge updates without a Y.Doc,
// which costs about 14 times the document's encoded size. It holds
// - the served state as a few merged updates plus a short tail of recent ones (leveled-updates.ts);
// - the state vector of the served state and, once something is deleted, its deleted ranges
//   (DeleteIndex), to tell new from known;
// - what could not be integrated yet because something it builds on is missing, exactly as a
//   Y.Doc keeps pending structs (held-updates.ts): an update is cut where its structs stop
//   integrating, the part below is served, the rest held; held structs are never counted in the
//   state vector, and are served with every answer that tells a peer what it lacks (as Yjs's
//   encodeStateAsUpdate appends pending structs), so a peer that joins during a gap has them when
//   it fills.
import * as encoding from 'lib0/encoding'
import * as Y from 'yjs'
import { AppError } from '../../infra/errors.js'
import { scanUpdate, UpdateShape } from '@tandem/protocol/update-scan'
import { splitUpdate } from '@tandem/protocol/update-split'
import { DeleteIndex } from './delete-index.js'
import { integrates, reachOf } from './integration.js'
import { HeldUpdates, MAX_HELD_BYTES, MAX_HELD_STRUCTS } from './held-updates.js'
import { LeveledUpdates } from './leveled-updates.js'

/**
 * What a room does with an update: nothing new in it, serve it (or its integrable part), or hold it for its
 * dependencies.
 */
export type Verdict = 'unchanged' | 'ready' | 'held'

/** what a Uint8Array costs beyond its bytes (object, backing store header), roughly */
const ARRAY_OVERHEAD = 96

/** Scratch shapes for the parts of a cut update and for held updates judged again (judging is synchronous). */
const belowShape = new UpdateShape()
const aboveShape = new UpdateShape()
const againShape = new UpdateShape()

export class DocState {
  /** the served state: merged levels and a tail of recent updates */
  private readonly served = new LeveledUpdates()
  private readonly clocks = new Map<number, number>()
  /**
   * The served deleted ranges, built from the served state on the first update that deletes
   * something: a document only read (most loaded documents) never pays for it.
   */
  private deletedIndex: DeleteIndex | null = null
  private readonly held = new HeldUpdates()
  /** counts changes to what is served, held updates included (a paced sync checks whether its peer must catch up) */
  version = 0
  /** deleted ranges added since the last compaction: without any, collecting garbage frees nothing */
  deletionsSinceCompaction = 0

  /**
   * Loads a stored document: a snapshot (written by a room: its served state, with what it held
   * merged in behind a gap) and the updates since, judged as they were when they arrived, so a
   * held update is held again, neither lost nor served early.
   */
  static load(snapshot: Uint8Array | null, updates: Uint8Array[]): DocState {
    const s = new DocState()
    const shape = new UpdateShape()
    if (snapshot && snapshot.length > 2) {
      scanUpdate(snapshot, shape)
      s.accept(snapshot, shape)
      s.deletionsSinceCompaction = 0 // a snapshot is collected already
    }
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

  /** encoded bytes held (served and held back), plus what the indexes cost */
  get bytes(): number {
    const arrays = this.served.arrays + this.held.count
    return (
      this.served.bytes +
      this.held.bytes +
      arrays * ARRAY_OVERHEAD +
      (this.deletedIndex?.size ?? 0) * 16 +
      this.clocks.size * 40
    )
  }

  /** updates (or parts of them) held back for a missing dependency */
  get heldCount(): number {
    return this.held.count
  }

  /** The servable clock of `client` (0 when it has written nothing here). */
  clock(client: number): number {
    return this.clocks.get(client) ?? 0
  }

  /**
   * Judges an update whose scan filled `shape`, and takes it in: 'unchanged' when it adds nothing
   * (no struct past the served clocks or held already, no deletion), 'ready' when it (or the part
   * of it that integrates) is served from now on, 'held' when all it adds waits for a dependency.
   * Held updates that it unblocks are served too. `bounded`: refuse (AppError, nothing taken) an
   * update that would be held past the bounds of held-updates.ts; for what a writer sends, not
   * for what is committed already.
   */
  accept(update: Uint8Array, shape: UpdateShape, bounded = false): Verdict {
    const verdict = this.judge(update, shape, bounded)
    if (verdict === 'ready' && this.held.count > 0) this.releaseHeld()
    return verdict
  }

  private judge(update: Uint8Array, shape: UpdateShape, bounded: boolean): Verdict {
    if (!this.adds(shape)) return 'unchanged'
    if (integrates(shape.structs, this.clocks)) {
      this.take(update, shape)
      return 'ready'
    }
    const { below, above } = this.cut(update, shape)
    const serve = below !== null && this.adds(belowShape)
    const hold = above !== null && !this.held.covers(aboveShape, (c) => this.clock(c))
    if (hold && bounded && !this.held.fits(aboveShape, above.length)) {
      throw new AppError(
        'held_full',
        `the document holds ${MAX_HELD_STRUCTS} structs or ${MAX_HELD_BYTES} bytes waiting for what they build on; send that first`,
      )
    }
    if (serve) this.take(below, belowShape)
    if (hold) {
      this.held.add(above, aboveShape)
      this.version++
    }
    return serve ? 'ready' : hold ? 'held' : 'unchanged'
  }

  /**
   * Whether the document has everything `update` holds, served or held: a read-only peer's sync
   * step 2 carries the pending structs it was sent, which is no write.
   */
  has(update: Uint8Array, shape: UpdateShape): boolean {
    if (!this.adds(shape)) return true
    if (integrates(shape.structs, this.clocks)) return false
    const { below, above } = this.cut(update, shape)
    return !(below && this.adds(belowShape)) && !(above && !this.held.covers(aboveShape, (c) => this.clock(c)))
  }

  /**
   * As a Y.Doc integrates what it can and keeps the rest pending: the update cut where each
   * client's structs stop integrating, the parts scanned into belowShape and aboveShape.
   */
  private cut(update: Uint8Array, shape: UpdateShape): { below: Uint8Array | null; above: Uint8Array | null } {
    const reach = reachOf(shape.structs, this.clocks)
    const parts = splitUpdate(update, (client) => reach.get(client) ?? this.clock(client))
    if (parts.below) scanUpdate(parts.below, belowShape)
    if (parts.above) scanUpdate(parts.above, aboveShape)
    return parts
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

  /** Held updates whose dependencies arrived are served (their integrable parts), until none moves. */
  private releaseHeld(): void {
    for (let moved = true; moved && this.held.count > 0;) {
      moved = false
      for (const u of this.held.takeAll()) {
        scanUpdate(u, againShape)
        if (this.judge(u, againShape, false) === 'ready') moved = true
      }
    }
    this.version++
  }

  /**
   * The served state as it is held, in the order it was taken (each part integrates after the ones before); held
   * updates are not in it.
   */
  parts(): Uint8Array[] {
    return this.served.parts()
  }

  /** Bytes of the served state (what a first sync sends, with the held updates). */
  get servedBytes(): number {
    return this.served.bytes
  }

  /**
   * The document as one update: the served state (merged into one level) and what is held, as Yjs's encodeStateAsUpdate
   * gives it.
   */
  full(): Uint8Array {
    return this.withHeld(this.served.full())
  }

  /** What a peer with `stateVector` lacks, held updates included (throws on a malformed state vector). */
  diff(stateVector: Uint8Array): Uint8Array {
    const served = this.served.diff(stateVector)
    const held = this.heldPart(stateVector)
    return held ? Y.mergeUpdates([served, held]) : served
  }

  /**
   * What a peer with `stateVector` (none: nothing) lacks, part by part as held, in the order the
   * parts integrate: the served parts, then what is held (throws on a malformed state vector).
   */
  answerParts(stateVector?: Uint8Array): Uint8Array[] {
    const parts = stateVector ? this.served.diffParts(stateVector) : this.served.parts()
    const held = this.heldPart(stateVector)
    if (held) parts.push(held)
    return parts
  }

  /** `update` (the served state, or part of it) with what is held merged in. */
  withHeld(update: Uint8Array): Uint8Array {
    const held = this.held.pending()
    return held ? Y.mergeUpdates([update, held]) : update
  }

  /** What is held, as one update, less what a peer with `stateVector` has; null when nothing is held. */
  heldPart(stateVector?: Uint8Array): Uint8Array | null {
    const held = this.held.pending()
    return held && stateVector ? Y.diffUpdate(held, stateVector) : held
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

  /** Replaces the parts pinParts() returned by `folded`, if they are still the first (LeveledUpdates.replacePrefix). */
  replacePrefix(from: readonly Uint8Array[], folded: Uint8Array): boolean {
    return this.served.replacePrefix(from, folded)
  }
}
