// A room: one loaded document, its peers and its write queue. Updates are validated, applied,
// queued for the process's group commit (one storage write per cycle across rooms), and only
// broadcast once written, so nothing a client has seen from another can be lost by a crash.
// Updates that change nothing (already known, deleting nothing new) are neither stored nor sent.
// An update the scan proves new and safe to integrate is queued without being applied: the
// document takes it, with every other such update, in one transaction when someone reads it
// (a join, a REST read, a snapshot) or enough have gathered (see applyDeferred).
import * as awarenessProtocol from 'y-protocols/awareness'
import * as Y from 'yjs'
import { AppError } from '../infra/errors.js'
import type { Logger } from '../infra/log.js'
import type { Metrics } from '../infra/metrics.js'
import { CLOSE } from '../protocol/close-codes.js'
import { encodeAwareness, encodePermissionDenied, encodeSyncStep1, encodeSyncStep2, encodeUpdate } from '../protocol/messages.js'
import { scanUpdate, UpdateShape } from '../protocol/update-scan.js'
import type { AppendedSeqs, AppendWrite, Attributes, DocStore, UpdateEntry } from '../storage/doc-store.js'
import { checkAwarenessUpdate } from './awareness-update.js'
import { FullStateCache } from './full-state-cache.js'
import type { CommitSource, GroupCommitter } from './group-commit.js'
import { Peer } from './peer.js'
import type { Transport } from './transport.js'

export interface RoomOptions {
  docId: string
  store: DocStore
  /** the process's one writer; every room of a registry shares it */
  committer: GroupCommitter
  transport: Transport
  log: Logger
  metrics: Metrics
  now: () => number
  maxDocBytes: number
  compactThreshold: number
  maxBackpressureBytes: number
  /** how long a room keeps its framed full state after the last join that used it (ms) */
  fullStateKeepMs?: number
  /**
   * Cluster mode: the store numbers appends (several nodes write one document) and the bus
   * watermark (every seq up to it applied here) is what a snapshot may cover.
   */
  cluster?: {
    watermark(docId: string): number | undefined
    /** the document's compaction lease (null: another node compacts it now; skip) */
    compactLease(docId: string): Promise<{ release(): Promise<void> } | null>
  }
}

interface Pending extends UpdateEntry {
  origin: Peer | null
  receivedAt: number
  done?: { resolve: () => void; reject: (e: unknown) => void }
}

const EMPTY_UPDATE_MAX = 2 // an update with no structs and no deletions encodes as [0, 0]

/**
 * Deferred updates a room holds before it applies them anyway (their bytes count in maxDocBytes
 * too): a count drawn from [MIN, 2 MIN) at each apply, so rooms that got busy together (a
 * thousand opened at once) do not all pay their transaction in the same turn.
 */
const MIN_DEFERRED = 48
const MAX_DEFERRED_BYTES = 256 * 1024 // 256 KiB

/** The scan's findings about the update being ingested (one per process: ingest is synchronous). */
const shape = new UpdateShape()

/** How often, at most, a room looks for peers past the backpressure limit after broadcasting. */
const SLOW_PEER_CHECK_MS = 1000
/** Sync answers larger than this go out paced (fragments, each after a drain). */
const PACED_SYNC_BYTES = 64 * 1024

export class Room implements CommitSource {
  /** the document without the deferred updates; read it through `doc` */
  private readonly ydoc = new Y.Doc()
  readonly awareness = new awarenessProtocol.Awareness(this.ydoc)
  readonly peers = new Set<Peer>()
  /** transient holders (REST calls, API reads) keeping the room loaded */
  holds = 0
  private lastSeq = 0
  private snapshotSeq = 0
  /** upper bound on the encoded document size: snapshot plus updates since */
  private approxBytes = 0
  /** applied, waiting for the next write cycle */
  private pending: Pending[] = []
  /** applied, in the write cycle in flight */
  private inFlight: Pending[] | null = null
  private lastSlowPeerCheck = 0
  private bytesSinceSlowPeerCheck = 0
  /** set by the transaction listener: the last applyUpdate changed the document */
  private changed = false
  /** counts document changes, so a paced sync knows whether it must catch its peer up */
  private version = 0
  /**
   * Updates queued (and, once written, broadcast) like any other but not applied to the document
   * yet. Each one was proven new (it extends some client's clock past everything known) and
   * unable to fail in Yjs (UpdateShape.integrable), so applying it later cannot change what the
   * room decided about it. One Yjs transaction for many updates costs a fraction of one per update.
   */
  private deferred: Uint8Array[] = []
  private deferredBytes = 0
  /** per client, the clock past everything known: the document's, raised by the deferred updates (null: none deferred) */
  private deferredClocks: Map<number, number> | null = null
  private deferCap = drawDeferCap()
  /** peers receiving a paced sync answer, outside the room's topic meanwhile */
  private pacing = new Set<Peer>()
  private awarenessChanged = new Set<number>()
  private awarenessScheduled = false
  destroyed = false

  constructor(private readonly o: RoomOptions) {
    this.fullState = new FullStateCache(() => encodeSyncStep2(Y.encodeStateAsUpdate(this.doc)), o.fullStateKeepMs ?? 0)
    this.awareness.setLocalState(null)
    // afterTransaction, not 'update': an 'update' listener makes Yjs encode every transaction.
    this.ydoc.on('afterTransaction', (tr: Y.Transaction) => {
      if (!transactionChanged(tr)) return
      this.changed = true
      this.version++
      this.fullState.invalidate()
    })
    // Awareness changes made by a peer's message are remembered per peer, so its states can be
    // removed when it leaves; every change goes out to every peer (the sender too: its own echo
    // is what keeps a quiet provider from timing out).
    this.awareness.on('update', ({ added, updated, removed }: Record<string, number[]>, origin: unknown) => {
      // destroy() clears the local state: nobody is left to tell (a thousand rooms at shutdown)
      if (this.destroyed) return
      const changed = [...added!, ...updated!, ...removed!]
      if (isPeer(origin)) {
        if (added!.length > 0) for (const id of added!) origin.awarenessIds.add(id)
        if (removed!.length > 0 && origin.hasAwareness) for (const id of removed!) origin.awarenessIds.delete(id)
      }
      for (const id of changed) this.awarenessChanged.add(id)
      this.scheduleAwarenessFlush()
    })
  }

  /** Awareness changes of one tick go out as one message listing every changed client. */
  private scheduleAwarenessFlush(): void {
    if (this.awarenessScheduled) return
    this.awarenessScheduled = true
    setImmediate(() => {
      this.awarenessScheduled = false
      if (this.destroyed || this.awarenessChanged.size === 0) return
      const ids = [...this.awarenessChanged]
      this.awarenessChanged.clear()
      this.o.transport.publish(this.o.docId, encodeAwareness(awarenessProtocol.encodeAwarenessUpdate(this.awareness, ids)))
    })
  }

  get docId(): string {
    return this.o.docId
  }

  /** The document with every accepted update applied (deferred ones are applied first). */
  get doc(): Y.Doc {
    if (this.deferred.length > 0) this.applyDeferred()
    return this.ydoc
  }

  /** the highest seq this room wrote or loaded */
  get headSeq(): number {
    return this.lastSeq
  }

  get idle(): boolean {
    return this.peers.size === 0 && this.holds === 0
  }

  /** whether the encoded full state is held (dropped sync-cache-ms after the last join using it) */
  get holdsFullState(): boolean {
    return this.fullState.held
  }

  get hasUnflushed(): boolean {
    return this.pending.length > 0 || this.inFlight !== null
  }

  /** Rebuilds the document from storage. Runs once, before any peer joins. */
  async load(seedFrom?: () => Promise<Uint8Array | null>, seedUser = 'system'): Promise<void> {
    const state = await this.o.store.load(this.o.docId)
    Y.transact(this.ydoc, () => {
      if (state.snapshot) Y.applyUpdate(this.ydoc, state.snapshot.state)
      for (const u of state.updates) Y.applyUpdate(this.ydoc, u.update)
    })
    this.lastSeq = state.lastSeq
    this.snapshotSeq = state.snapshot?.seq ?? 0
    this.approxBytes = (state.snapshot?.state.length ?? 0) + state.updates.reduce((n, u) => n + u.update.length, 0)
    if (state.lastSeq === 0 && seedFrom) {
      // A new branch starts as a copy of main at this moment, written as its first update.
      const seed = await seedFrom()
      if (seed && seed.length > EMPTY_UPDATE_MAX) await this.applyUpdate(seed, seedUser, null)
    }
  }

  // ---- peers ---------------------------------------------------------------------------------

  join(peer: Peer): void {
    this.peers.add(peer)
    this.o.transport.join(peer.socket, this.o.docId)
    // The server opens the sync: its state vector, then the awareness it knows.
    peer.send(encodeSyncStep1(Y.encodeStateVector(this.doc)))
    if (this.awareness.getStates().size > 0) {
      peer.send(encodeAwareness(awarenessProtocol.encodeAwarenessUpdate(this.awareness, [...this.awareness.getStates().keys()])))
    }
  }

  leave(peer: Peer): void {
    if (!this.peers.delete(peer)) return
    this.o.transport.leave(peer.socket, this.o.docId)
    if (peer.hasAwareness) awarenessProtocol.removeAwarenessStates(this.awareness, [...peer.awarenessIds], null)
  }

  /** Sync step 1 from a peer: answer with what it lacks, once everything applied is durable. */
  async answerSyncStep1(peer: Peer, stateVector: Uint8Array): Promise<void> {
    await this.flushed()
    if (peer.closed) return
    if (stateVector.length === 1 && stateVector[0] === 0) {
      const message = this.fullState.acquire()
      try {
        return await this.sendSyncAnswer(peer, message)
      } finally {
        this.fullState.release()
      }
    }
    let message: Uint8Array
    try {
      message = encodeSyncStep2(Y.encodeStateAsUpdate(this.doc, stateVector))
    } catch {
      throw new AppError('malformed_message', 'invalid state vector')
    }
    await this.sendSyncAnswer(peer, message)
  }

  private async sendSyncAnswer(peer: Peer, message: Uint8Array): Promise<void> {
    if (message.length <= PACED_SYNC_BYTES || !peer.socket.sendPaced || this.pacing.has(peer)) {
      peer.send(message) // (behind a paced answer still going out, the socket queues it)
      return
    }
    await this.sendPacedSync(peer, message)
  }

  /**
   * A large sync answer in fragments. No broadcast may land between the fragments of one
   * message, so the peer leaves the room's topic meanwhile; afterwards it gets what changed (once
   * durable) and the awareness states, and rejoins.
   */
  private async sendPacedSync(peer: Peer, message: Uint8Array): Promise<void> {
    const stateVector = Y.encodeStateVector(this.doc)
    const version = this.version
    this.pacing.add(peer)
    this.o.transport.leave(peer.socket, this.o.docId)
    try {
      if (!(await peer.socket.sendPaced!(message))) return
      await this.flushed()
    } finally {
      this.pacing.delete(peer)
    }
    if (peer.closed || this.destroyed || !this.peers.has(peer)) return
    // Synchronous from here: everything applied is durable, so the catch-up shows nothing a
    // crash could lose, and updates after it arrive through the topic.
    if (this.version !== version) peer.send(encodeUpdate(Y.encodeStateAsUpdate(this.doc, stateVector)))
    this.o.transport.join(peer.socket, this.o.docId)
    this.sendAwarenessTo(peer)
  }

  /**
   * Sync step 2 for a client that has nothing yet, framed, kept until the document changes or
   * joins stop using it: a storm of joins to a large document encodes it once, not once per socket.
   */
  private readonly fullState: FullStateCache

  /** A document update from a peer (sync step 2 or update). */
  receiveUpdate(peer: Peer, update: Uint8Array, isStep2: boolean): void {
    if (!peer.canWrite) {
      // A read-only client's sync step 2 is usually empty; anything with content is refused.
      if (isStep2 && update.length <= EMPTY_UPDATE_MAX) return
      peer.send(encodePermissionDenied('read-only: this token does not allow changes'))
      return
    }
    // No promise per update from a socket: nobody waits on it, the broadcast is the answer.
    if (!this.destroyed) this.ingest(update, peer.cap.sub, peer, peer.cap.attr)
  }

  receiveAwareness(peer: Peer, update: Uint8Array): void {
    try {
      awarenessProtocol.applyAwarenessUpdate(this.awareness, update, peer)
    } catch {
      throw new AppError('malformed_message', 'invalid awareness update')
    }
  }

  /**
   * An awareness update sent over REST: applied as a peer's would be (every live client hears it,
   * in cluster mode every node), checked whole first. Its clients belong to no socket, so they
   * go when they stop renewing (y-protocols' 30 s outdated timeout) or send a null state.
   */
  applyRestAwareness(update: Uint8Array): void {
    checkAwarenessUpdate(update)
    awarenessProtocol.applyAwarenessUpdate(this.awareness, update, 'rest')
  }

  /** Every awareness state the room knows (its peers', other nodes', REST callers'), or null when none. */
  encodeAwarenessStates(): Uint8Array | null {
    const ids = [...this.awareness.getStates().keys()]
    return ids.length ? awarenessProtocol.encodeAwarenessUpdate(this.awareness, ids) : null
  }

  sendAwarenessTo(peer: Peer): void {
    const ids = [...this.awareness.getStates().keys()]
    if (ids.length) peer.send(encodeAwareness(awarenessProtocol.encodeAwarenessUpdate(this.awareness, ids)))
  }

  // ---- updates -------------------------------------------------------------------------------

  /**
   * Validates and applies an update, queues it for the next batched write, and resolves once it
   * is durable and broadcast. Malformed or oversized updates throw before touching the document.
   */
  applyUpdate(update: Uint8Array, user: string, origin: Peer | null, attrs?: Attributes): Promise<void> {
    if (this.destroyed) return Promise.reject(new AppError('unavailable', 'room is closing'))
    const queued = this.ingest(update, user, origin, attrs)
    // Nothing new: the caller still learns of success only once what it may have duplicated
    // (applied by someone else, not yet written) is durable.
    if (!queued) return this.flushed()
    return new Promise<void>((resolve, reject) => {
      queued.done = { resolve, reject }
    })
  }

  /**
   * Validates, applies and queues an update; null when it changed nothing (a re-sent or empty
   * update), which is neither stored nor broadcast. Throws on a malformed or oversized update.
   */
  private ingest(update: Uint8Array, user: string, origin: Peer | null, attrs: Attributes | undefined): Pending | null {
    // Every client that joins with nothing new answers our step 1 with [0, 0]; applying it costs a
    // whole Yjs transaction (~7 KB of garbage per join, a fifth of an upgrade's allocations).
    if (update.length === EMPTY_UPDATE_MAX && update[0] === 0 && update[1] === 0) {
      this.o.metrics.updatesUnchanged.inc()
      return null
    }
    try {
      // Checked whole first: Yjs may integrate structs before it fails on a truncated delete set.
      // The scan reads what Y.decodeUpdate reads without building its objects (half the CPU).
      scanUpdate(update, shape)
    } catch {
      throw new AppError('malformed_message', 'malformed Yjs update')
    }
    if (this.approxBytes + update.length > this.o.maxDocBytes) {
      throw new AppError('doc_too_large', `document would exceed ${this.o.maxDocBytes} bytes`)
    }
    const receivedAt = performance.now()
    if (this.defer(update)) return this.queue(update, user, origin, attrs, receivedAt)
    const pendingBefore = pendingState(this.doc)
    this.changed = false
    try {
      Y.applyUpdate(this.doc, update, origin ?? 'rest')
    } catch {
      throw new AppError('malformed_message', 'Yjs update could not be applied')
    }
    const pendingMoved = pendingChanged(pendingBefore, pendingState(this.doc))
    if (pendingMoved) {
      this.fullState.invalidate() // the full state carries pending structs too
      this.version++
    }
    if (!this.changed && !pendingMoved) {
      this.o.metrics.updatesUnchanged.inc()
      return null
    }
    return this.queue(update, user, origin, attrs, receivedAt)
  }

  private queue(update: Uint8Array, user: string, origin: Peer | null, attrs: Attributes | undefined, receivedAt: number): Pending {
    this.approxBytes += update.length
    const queued: Pending = { user, at: this.o.now(), update, origin, receivedAt }
    if (attrs) queued.attrs = attrs // absent otherwise: the common case stores nothing more
    this.pending.push(queued)
    this.o.committer.enqueue(this)
    return queued
  }

  /**
   * Defers a scanned update (shape) when it is safe to and certainly changes the document: some
   * client's structs reach past everything the document and the deferred updates hold. Such an
   * update is new whether Yjs integrates it or keeps it pending for a missing dependency, so the
   * unchanged check would pass it anyway. Anything else (a deletion alone, a re-send, a parent by
   * id) is applied now, after the deferred ones.
   */
  private defer(update: Uint8Array): boolean {
    if (!shape.integrable) return false
    const store = this.ydoc.store as unknown as Y.Doc['store'] & { pendingStructs: unknown; pendingDs: unknown }
    // Pending structs could hold what this update's clocks seem to add: let Yjs judge.
    if (store.pendingStructs !== null || store.pendingDs !== null) return false
    const clocks = (this.deferredClocks ??= new Map())
    const r = shape.ranges
    let grows = false
    // A clock is raised only where the update grows, so an update that does not changes nothing.
    for (let i = 0; i < r.length; i += 3) {
      if (r[i + 2]! <= (clocks.get(r[i]!) ?? Y.getState(store, r[i]!))) continue
      clocks.set(r[i]!, r[i + 2]!)
      grows = true
    }
    if (!grows) return false
    this.deferred.push(update)
    this.deferredBytes += update.length
    this.version++
    this.fullState.invalidate()
    if (this.deferred.length >= this.deferCap || this.deferredBytes >= MAX_DEFERRED_BYTES) this.applyDeferred()
    return true
  }

  /** Applies the deferred updates in one transaction, in the order they were accepted. */
  private applyDeferred(): void {
    const updates = this.deferred
    this.deferred = []
    this.deferredBytes = 0
    this.deferredClocks = null
    this.deferCap = drawDeferCap()
    const doc = this.ydoc
    Y.transact(doc, () => {
      for (const u of updates) {
        try {
          Y.applyUpdate(doc, u)
        } catch (err) {
          // Proven impossible by the scan (update-scan.test.ts); should Yjs still refuse one, the
          // others go on, and the log keeps it as written.
          this.o.log.error({ err, docId: this.o.docId }, 'a deferred update could not be applied')
        }
      }
    }, 'deferred')
  }

  /** Resolves when every update applied so far is durable. */
  async flushed(): Promise<void> {
    while (this.hasUnflushed) {
      if (this.pending.length > 0) this.o.committer.enqueue(this)
      await this.o.committer.nextCycle()
    }
  }

  // ---- group commit (CommitSource) -----------------------------------------------------------

  takeBatch(): AppendWrite | null {
    if (this.inFlight || this.pending.length === 0) return null
    const batch = (this.inFlight = this.pending)
    this.pending = []
    const entries = batch.map(({ user, at, update, attrs }): UpdateEntry => (attrs ? { user, at, update, attrs } : { user, at, update }))
    if (this.o.cluster) return { docId: this.o.docId, entries }
    return { docId: this.o.docId, firstSeq: this.lastSeq + 1, entries }
  }

  restore(_write: AppendWrite): void {
    if (this.discarded) return this.dropUnwritten(this.inFlight ?? [])
    // Back in front of anything queued since; the document keeps them applied in memory, so the
    // room never unloads holding them (hasUnflushed).
    if (!this.inFlight) return
    this.pending = this.inFlight.concat(this.pending)
    this.inFlight = null
  }

  committed(_write: AppendWrite, seqs: AppendedSeqs): Promise<void> | void {
    const batch = this.inFlight
    if (!batch) return
    this.inFlight = null
    this.lastSeq = Math.max(this.lastSeq, seqs.lastSeq)
    if (!this.destroyed) this.broadcast(batch)
    const now = performance.now()
    for (const p of batch) {
      this.o.metrics.updateLatency.observe((now - p.receivedAt) / 1000)
      p.done?.resolve()
    }
    if (!this.destroyed && this.lastSeq - this.snapshotSeq >= this.o.compactThreshold) return this.compact()
  }

  /** One message per write cycle for everyone: the batch merged, skipped only for a sole author. */
  private broadcast(batch: Pending[]): void {
    const only = batch[0]!.origin
    let soleAuthor: Peer | null = only
    for (let i = 1; i < batch.length && soleAuthor; i++) if (batch[i]!.origin !== only) soleAuthor = null
    const update = batch.length === 1 ? batch[0]!.update : Y.mergeUpdates(batch.map((p) => p.update))
    const frame = encodeUpdate(update)
    this.o.transport.publish(this.o.docId, frame, soleAuthor?.socket)
    // Walking every peer after every broadcast costs O(peers) per update (1.2% of the server's
    // CPU with 1,000 rooms even at one walk per 50 ms). A queue can only grow by what was
    // broadcast, so the walk waits for half the limit's worth of bytes (no peer jumps from under
    // the limit to uWS's hard stop, 4x, unseen) or a second.
    this.bytesSinceSlowPeerCheck += frame.length
    const now = performance.now()
    if (this.bytesSinceSlowPeerCheck * 2 >= this.o.maxBackpressureBytes || now - this.lastSlowPeerCheck >= SLOW_PEER_CHECK_MS) {
      this.lastSlowPeerCheck = now
      this.bytesSinceSlowPeerCheck = 0
      this.closeSlowPeers()
    }
  }

  /** A peer whose queue passed the limit is closed (1013) rather than let fall behind silently. */
  closeSlowPeers(): void {
    for (const peer of this.peers) {
      if (peer.socket.bufferedAmount() > this.o.maxBackpressureBytes) {
        this.leave(peer)
        peer.close(CLOSE.tryAgainLater, 'backpressure limit reached: reconnect to resync')
      }
    }
  }

  /**
   * Writes the current state as a snapshot covering lastSeq. The state may also hold updates
   * applied but not yet logged; replaying them from the log after a restart is a no-op in Yjs.
   */
  async compact(): Promise<void> {
    if (!this.o.cluster) return this.writeSnapshot(this.lastSeq)
    // Once per cluster: two nodes with the document loaded would write the same snapshot twice.
    const lease = await this.o.cluster.compactLease(this.o.docId).catch(() => null)
    if (!lease) return
    try {
      // Another node's seq below ours may not be applied yet here: cover only the watermark.
      await this.writeSnapshot(this.o.cluster.watermark(this.o.docId) ?? 0)
    } finally {
      await lease.release().catch(() => undefined)
    }
  }

  private async writeSnapshot(seq: number): Promise<void> {
    if (seq <= this.snapshotSeq) return
    const state = Y.encodeStateAsUpdate(this.doc)
    try {
      await this.o.store.writeSnapshot(this.o.docId, { seq, at: this.o.now(), state })
      this.snapshotSeq = seq
      this.approxBytes = state.length + this.pending.reduce((n, p) => n + p.update.length, 0)
    } catch (err) {
      this.o.log.error({ err, docId: this.o.docId }, 'snapshot write failed; the log still holds every update')
    }
  }

  /**
   * An update another node committed (or one read back from storage by a resync) was applied to
   * the document: this node's sockets get it. It is never appended again here.
   */
  remoteApplied(update: Uint8Array, seq?: number): void {
    if (this.destroyed) return
    this.approxBytes += update.length
    if (seq !== undefined) this.lastSeq = Math.max(this.lastSeq, seq)
    this.o.transport.publish(this.o.docId, encodeUpdate(update))
    const now = performance.now()
    if (now - this.lastSlowPeerCheck >= SLOW_PEER_CHECK_MS) {
      this.lastSlowPeerCheck = now
      this.closeSlowPeers()
    }
  }

  /**
   * The document was erased (hard delete): what is queued is dropped unwritten, its callers fail,
   * the peers are closed with `code`. A write already in flight still lands (the eraser waits for
   * it with `flushed()` and erases after); a failed one is not retried.
   */
  discard(code: number, reason: string): void {
    this.discarded = true
    const queued = this.pending
    this.pending = []
    this.dropUnwritten(queued)
    this.destroy(code, reason)
  }

  private discarded = false

  private dropUnwritten(batch: Pending[]): void {
    if (batch === this.inFlight) this.inFlight = null
    for (const p of batch) p.done?.reject(new AppError('doc_deleted', 'document deleted'))
  }

  /**
   * Closes every peer (shutdown) and frees the document. Callers flush first. `exiting`: the
   * process ends next, so the document is left to its exit; only the awareness's timer, which
   * would keep the process alive, is stopped (Yjs and y-protocols' destroy is ~35 µs a room).
   */
  destroy(code: number = CLOSE.goingAway, reason = 'server shutting down', exiting = false): void {
    if (this.destroyed) return
    this.destroyed = true
    for (const peer of [...this.peers]) {
      this.leave(peer)
      peer.close(code, reason)
    }
    this.fullState.invalidate()
    this.deferred = []
    this.deferredClocks = null
    if (exiting) {
      clearInterval(this.awareness._checkInterval)
      return
    }
    // Destroys the awareness too (y-protocols listens for its document's destroy; room.test.ts
    // checks it): destroying it first as well cost a second round of its events per room.
    this.ydoc.destroy()
  }
}

function drawDeferCap(): number {
  return MIN_DEFERRED + Math.floor(Math.random() * MIN_DEFERRED)
}

/** Whether a transaction integrated structs or deleted something not deleted before. */
function transactionChanged(tr: Y.Transaction): boolean {
  if (tr.deleteSet.clients.size > 0) return true
  if (tr.afterState.size !== tr.beforeState.size) return true
  for (const [client, clock] of tr.afterState) if (tr.beforeState.get(client) !== clock) return true
  return false
}

/** Structs and deletions Yjs keeps until what they depend on arrives; they are content too. */
type PendingState = [Uint8Array | null, Uint8Array | null]

function pendingState(doc: Y.Doc): PendingState {
  const store = doc.store as unknown as { pendingStructs: { update: Uint8Array } | null; pendingDs: Uint8Array | null }
  return [store.pendingStructs?.update ?? null, store.pendingDs]
}

function pendingChanged(a: PendingState, b: PendingState): boolean {
  return !sameBytes(a[0], b[0]) || !sameBytes(a[1], b[1])
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === b) return true
  if (!a || !b || a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function isPeer(x: unknown): x is Peer {
  return x instanceof Peer
}
