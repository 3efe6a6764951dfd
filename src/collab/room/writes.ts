// A room's write path: an update is checked whole, judged against the encoded document, queued
// for the process's group commit (one storage write per cycle across rooms), and handed back to
// the room to broadcast only once written, so nothing a client has seen from another can be lost
// by a crash. Updates that change nothing (already known, deleting nothing new) are neither
// stored nor sent. Compaction runs after the write that passes the threshold.
import { AppError } from '../../infra/errors.js'
import type { Logger } from '../../infra/log.js'
import type { Metrics } from '../../infra/metrics.js'
import { scanUpdate, UpdateShape } from '@tandem/protocol/update-scan'
import type { AppendedSeqs, AppendWrite, Attributes, DocStore } from '../../storage/doc-store.js'
import type { CommitSource, GroupCommitter } from '../group-commit.js'
import type { Peer } from '../peer.js'
import { Compaction, type ClusterCompaction } from './compaction.js'
import type { DocBuilds } from './doc-builds.js'
import { DocState } from './doc-state.js'
import { WriteQueue, type Queued } from './write-queue.js'

export interface RoomWritesOptions {
  docId: string
  store: DocStore
  committer: GroupCommitter
  docBuilds: DocBuilds
  log: Logger
  metrics: Metrics
  now: () => number
  maxDocBytes: number
  compactThreshold: number
  cluster?: ClusterCompaction
  /** the served document changed (cached sync frames are stale) */
  changed: () => void
  /** a write cycle's updates are durable: send them to the room's sockets */
  landed: (batch: Queued[]) => void
  /** whether the room still serves (a closing room broadcasts and compacts nothing) */
  live: () => boolean
}

const EMPTY_UPDATE_MAX = 2 // an update with no structs and no deletions encodes as [0, 0]

/** The scan's findings about the update being judged (one per process: ingest is synchronous). */
const shape = new UpdateShape()

export class RoomWrites implements CommitSource {
  state = new DocState()
  private readonly queue = new WriteQueue()
  private readonly compaction: Compaction
  private lastSeq = 0
  /** upper bound on the encoded document size: snapshot plus updates since */
  private approxBytes = 0
  private discarded = false
  private readonly o: RoomWritesOptions

  constructor(options: RoomWritesOptions) {
    const o = (this.o = oneShape(options))
    this.compaction = new Compaction({
      docId: o.docId,
      store: o.store,
      log: o.log,
      now: o.now,
      builds: o.docBuilds,
      cluster: o.cluster,
      state: () => this.state,
      collected: o.changed,
    })
  }

  get docId(): string {
    return this.o.docId
  }

  /** the highest seq this room wrote or loaded */
  get headSeq(): number {
    return this.lastSeq
  }

  get hasUnflushed(): boolean {
    return this.queue.hasUnflushed
  }

  /** bytes held: the encoded document, held updates and what is not written yet */
  get bytes(): number {
    return this.state.bytes + this.queue.bytes
  }

  /** Reads the document from storage. */
  async load(): Promise<void> {
    const stored = await this.o.store.load(this.o.docId)
    this.state = DocState.load(
      stored.snapshot?.state ?? null,
      stored.updates.map((u) => u.update),
    )
    this.lastSeq = stored.lastSeq
    this.compaction.loaded(stored.snapshot?.seq ?? 0)
    this.approxBytes = (stored.snapshot?.state.length ?? 0) + stored.updates.reduce((n, u) => n + u.update.length, 0)
  }

  /**
   * Judges and queues an update; null when it changed nothing (a re-sent or empty update), which
   * is neither stored nor broadcast. Throws on a malformed or oversized update, untouched.
   */
  ingest(update: Uint8Array, user: string, origin: Peer | null, attrs: Attributes | undefined): Queued | null {
    // Every client that joins with nothing new answers our step 1 with [0, 0].
    if (update.length === EMPTY_UPDATE_MAX && update[0] === 0 && update[1] === 0) {
      this.o.metrics.updatesUnchanged.inc()
      return null
    }
    try {
      scanUpdate(update, shape)
    } catch {
      throw new AppError('malformed_message', 'malformed Yjs update')
    }
    // What a Y.Doc could fail on (a length of 0, unsorted deletions, an item naming its own
    // client's later clock): no Yjs client writes it, and a document holding it could not load.
    if (!shape.integrable) throw new AppError('malformed_message', 'Yjs update could not be applied')
    if (this.approxBytes + update.length > this.o.maxDocBytes) {
      throw new AppError('doc_too_large', `document would exceed --max-doc-bytes (${this.o.maxDocBytes} bytes)`)
    }
    const receivedAt = performance.now()
    if (this.state.accept(update, shape, true) === 'unchanged') {
      this.o.metrics.updatesUnchanged.inc()
      return null
    }
    this.o.changed()
    this.approxBytes += update.length
    const queued = this.queue.push(update, user, this.o.now(), origin, attrs, receivedAt)
    this.o.committer.enqueue(this)
    return queued
  }

  /** Whether the document already has all `update` holds, served or held; throws on a malformed update. */
  contains(update: Uint8Array): boolean {
    if (update.length === EMPTY_UPDATE_MAX && update[0] === 0 && update[1] === 0) return true
    try {
      scanUpdate(update, shape)
    } catch {
      throw new AppError('malformed_message', 'malformed Yjs update')
    }
    return this.state.has(update, shape)
  }

  /**
   * An update another node committed (or one read back from storage by a resync): taken into the
   * document, never appended again here. False when it brought nothing new.
   */
  takeRemote(update: Uint8Array): boolean {
    try {
      scanUpdate(update, shape)
    } catch (err) {
      this.o.log.error({ err, docId: this.o.docId }, 'a committed update could not be read')
      return false
    }
    if (this.state.accept(update, shape) === 'unchanged') return false
    this.o.changed()
    this.approxBytes += update.length
    return true
  }

  /** Resolves when every update accepted so far is durable. */
  async flushed(): Promise<void> {
    while (this.queue.hasUnflushed) {
      this.o.committer.enqueue(this)
      await this.o.committer.nextCycle()
    }
  }

  // ---- group commit (CommitSource) -----------------------------------------------------------

  takeBatch(): AppendWrite | null {
    return this.queue.take(this.o.docId, this.o.cluster ? undefined : this.lastSeq + 1)
  }

  restore(_write: AppendWrite): void {
    // A dropped document's failed write is not retried; otherwise it goes back in front, and the
    // room never unloads holding it (hasUnflushed).
    if (this.discarded) this.queue.dropInFlight(new AppError('doc_deleted', 'document deleted'))
    else this.queue.giveBack()
  }

  committed(_write: AppendWrite, seqs: AppendedSeqs): Promise<void> | void {
    const batch = this.queue.landed()
    if (!batch) return
    this.lastSeq = Math.max(this.lastSeq, seqs.lastSeq)
    const live = this.o.live()
    if (live) this.o.landed(batch)
    const now = performance.now()
    // the batch is the write's entries in order (WriteQueue.take), numbered from firstSeq
    let seq = seqs.firstSeq
    for (const p of batch) {
      p.seq = seq++
      this.o.metrics.updateLatency.observe((now - p.receivedAt) / 1000)
      p.done?.resolve(p.seq)
    }
    if (live) return this.compaction.maybeCompact(this.lastSeq, this.o.compactThreshold, (bytes) => this.sized(bytes))
  }

  /** Writes the current state as a snapshot covering what is durable (see Compaction). */
  compact(): Promise<void> {
    return this.compaction.compact(this.lastSeq, (bytes) => this.sized(bytes))
  }

  private sized(snapshotBytes: number): void {
    this.approxBytes = snapshotBytes + this.queue.bytes
  }

  /** Drops what is queued unwritten, failing its callers (hard delete); a write in flight still lands. */
  discard(): void {
    this.discarded = true
    this.queue.dropQueued(new AppError('doc_deleted', 'document deleted'))
  }

  /** Frees the document (the room is destroyed). */
  free(): void {
    this.state = new DocState()
  }
}

/**
 * The options as one literal, so every room's have the same hidden class. The room builds them
 * by spreading the registry's options, which V8 keeps in dictionary mode (too many properties
 * added by a spread), a map per room: each `this.o.x` on the write path was a megamorphic load
 * that missed V8's stub cache (about 31,000 misses per property in a 10 s rooms bench, --log-ic).
 */
function oneShape(o: RoomWritesOptions): RoomWritesOptions {
  return {
    docId: o.docId,
    store: o.store,
    committer: o.committer,
    docBuilds: o.docBuilds,
    log: o.log,
    metrics: o.metrics,
    now: o.now,
    maxDocBytes: o.maxDocBytes,
    compactThreshold: o.compactThreshold,
    cluster: o.cluster,
    changed: o.changed,
    landed: o.landed,
    live: o.live,
  }
}
