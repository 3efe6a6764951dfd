// A room: one loaded document, its peers and its write queue. Updates are validated, applied,
// written to the log in one batch per tick, and only then broadcast, so nothing a client has seen
// from another can be lost by a crash. Writes are serialised per room, never globally.
import * as awarenessProtocol from 'y-protocols/awareness'
import * as Y from 'yjs'
import { AppError } from '../infra/errors.js'
import type { Logger } from '../infra/log.js'
import type { Metrics } from '../infra/metrics.js'
import { CLOSE } from '../protocol/close-codes.js'
import { encodeAwareness, encodePermissionDenied, encodeSyncStep1, encodeSyncStep2, encodeUpdate } from '../protocol/messages.js'
import type { DocStore, UpdateEntry } from '../storage/doc-store.js'
import type { Peer } from './peer.js'
import type { Transport } from './transport.js'

export interface RoomOptions {
  docId: string
  store: DocStore
  transport: Transport
  log: Logger
  metrics: Metrics
  now: () => number
  maxDocBytes: number
  compactThreshold: number
  maxBackpressureBytes: number
}

interface Pending extends UpdateEntry {
  origin: Peer | null
  receivedAt: number
  done?: { resolve: () => void; reject: (e: unknown) => void }
}

const EMPTY_UPDATE_MAX = 2 // an update with no structs and no deletions encodes as [0, 0]

export class Room {
  readonly doc = new Y.Doc()
  readonly awareness = new awarenessProtocol.Awareness(this.doc)
  readonly peers = new Set<Peer>()
  /** transient holders (REST calls, API reads) keeping the room loaded */
  holds = 0
  private lastSeq = 0
  private snapshotSeq = 0
  /** upper bound on the encoded document size: snapshot plus updates since */
  private approxBytes = 0
  private pending: Pending[] = []
  private flushing: Promise<void> | null = null
  private flushScheduled = false
  private failedWrites = 0
  private awarenessChanged = new Set<number>()
  private awarenessScheduled = false
  destroyed = false

  constructor(private readonly o: RoomOptions) {
    this.awareness.setLocalState(null)
    this.doc.on('update', () => {
      this.fullStateMessage = null
    })
    // Awareness changes made by a peer's message are remembered per peer, so its states can be
    // removed when it leaves; every change goes out to every peer (the sender too: its own echo
    // is what keeps a quiet provider from timing out).
    this.awareness.on('update', ({ added, updated, removed }: Record<string, number[]>, origin: unknown) => {
      const changed = [...added!, ...updated!, ...removed!]
      if (isPeer(origin)) {
        for (const id of added!) origin.awarenessIds.add(id)
        for (const id of removed!) origin.awarenessIds.delete(id)
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

  get idle(): boolean {
    return this.peers.size === 0 && this.holds === 0
  }

  get hasUnflushed(): boolean {
    return this.pending.length > 0 || this.flushing !== null
  }

  /** Rebuilds the document from storage. Runs once, before any peer joins. */
  async load(seedFrom?: () => Promise<Uint8Array | null>, seedUser = 'system'): Promise<void> {
    const state = await this.o.store.load(this.o.docId)
    Y.transact(this.doc, () => {
      if (state.snapshot) Y.applyUpdate(this.doc, state.snapshot.state)
      for (const u of state.updates) Y.applyUpdate(this.doc, u.update)
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
    if (peer.awarenessIds.size > 0) awarenessProtocol.removeAwarenessStates(this.awareness, [...peer.awarenessIds], null)
  }

  /** Sync step 1 from a peer: answer with what it lacks, once everything applied is durable. */
  async answerSyncStep1(peer: Peer, stateVector: Uint8Array): Promise<void> {
    await this.flushed()
    if (peer.closed) return
    let diff: Uint8Array
    if (stateVector.length === 1 && stateVector[0] === 0) {
      this.fullStateMessage ??= encodeSyncStep2(Y.encodeStateAsUpdate(this.doc))
      peer.send(this.fullStateMessage)
      return
    }
    try {
      diff = Y.encodeStateAsUpdate(this.doc, stateVector)
    } catch {
      throw new AppError('malformed_message', 'invalid state vector')
    }
    peer.send(encodeSyncStep2(diff))
  }

  /**
   * Sync step 2 for a client that has nothing yet, framed, kept until the document changes:
   * a storm of joins to a large document encodes it once, not once per socket.
   */
  private fullStateMessage: Uint8Array | null = null

  /** A document update from a peer (sync step 2 or update). */
  receiveUpdate(peer: Peer, update: Uint8Array, isStep2: boolean): void {
    if (!peer.canWrite) {
      // A read-only client's sync step 2 is usually empty; anything with content is refused.
      if (isStep2 && update.length <= EMPTY_UPDATE_MAX) return
      peer.send(encodePermissionDenied('read-only: this token does not allow changes'))
      return
    }
    void this.applyUpdate(update, peer.cap.sub, peer).catch(() => {})
  }

  receiveAwareness(peer: Peer, update: Uint8Array): void {
    try {
      awarenessProtocol.applyAwarenessUpdate(this.awareness, update, peer)
    } catch {
      throw new AppError('malformed_message', 'invalid awareness update')
    }
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
  applyUpdate(update: Uint8Array, user: string, origin: Peer | null): Promise<void> {
    if (this.destroyed) return Promise.reject(new AppError('unavailable', 'room is closing'))
    try {
      // Full decode first: Yjs may integrate structs before it fails on a truncated delete set.
      Y.decodeUpdate(update)
    } catch {
      throw new AppError('malformed_message', 'malformed Yjs update')
    }
    if (this.approxBytes + update.length > this.o.maxDocBytes) {
      throw new AppError('doc_too_large', `document would exceed ${this.o.maxDocBytes} bytes`)
    }
    const receivedAt = performance.now()
    try {
      Y.applyUpdate(this.doc, update, origin ?? 'rest')
    } catch {
      throw new AppError('malformed_message', 'Yjs update could not be applied')
    }
    this.approxBytes += update.length
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ user, at: this.o.now(), update, origin, receivedAt, done: { resolve, reject } })
      this.scheduleFlush()
    })
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.flushing) return
    this.flushScheduled = true
    setImmediate(() => {
      this.flushScheduled = false
      void this.flush()
    })
  }

  /** Resolves when every update applied so far is durable. */
  async flushed(): Promise<void> {
    while (this.pending.length > 0 || this.flushing) {
      if (this.flushing) await this.flushing.catch(() => {})
      else await this.flush()
    }
  }

  private flush(): Promise<void> {
    if (this.flushing) return this.flushing
    if (this.pending.length === 0) return Promise.resolve()
    const batch = this.pending
    this.pending = []
    this.flushing = this.writeAndBroadcast(batch).finally(() => {
      this.flushing = null
      if (this.pending.length > 0) this.scheduleFlush()
    })
    return this.flushing
  }

  private async writeAndBroadcast(batch: Pending[]): Promise<void> {
    const firstSeq = this.lastSeq + 1
    const t0 = performance.now()
    try {
      await this.o.store.append(
        this.o.docId,
        firstSeq,
        batch.map(({ user, at, update }) => ({ user, at, update })),
      )
    } catch (err) {
      // The document keeps the updates in memory; the batch goes back to the front and is
      // retried with backoff, so the room never unloads holding them.
      this.failedWrites++
      this.o.log.error({ err, docId: this.o.docId, attempt: this.failedWrites }, 'update log write failed')
      this.pending = batch.concat(this.pending)
      await new Promise((r) => setTimeout(r, Math.min(5000, 50 * 2 ** Math.min(this.failedWrites, 7))))
      return
    }
    this.failedWrites = 0
    this.lastSeq = firstSeq + batch.length - 1
    this.o.metrics.persistLatency.observe((performance.now() - t0) / 1000)
    this.broadcast(batch)
    const now = performance.now()
    for (const p of batch) {
      this.o.metrics.updateLatency.observe((now - p.receivedAt) / 1000)
      p.done?.resolve()
    }
    if (this.lastSeq - this.snapshotSeq >= this.o.compactThreshold) await this.compact()
  }

  /** One message per tick for everyone: the batch merged, skipped only for a sole author. */
  private broadcast(batch: Pending[]): void {
    const only = batch[0]!.origin
    const soleAuthor = batch.every((p) => p.origin === only) ? only : null
    const update = batch.length === 1 ? batch[0]!.update : Y.mergeUpdates(batch.map((p) => p.update))
    this.o.transport.publish(this.o.docId, encodeUpdate(update), soleAuthor?.socket)
    this.closeSlowPeers()
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
    const state = Y.encodeStateAsUpdate(this.doc)
    const seq = this.lastSeq
    try {
      await this.o.store.writeSnapshot(this.o.docId, { seq, at: this.o.now(), state })
      this.snapshotSeq = seq
      this.approxBytes = state.length + this.pending.reduce((n, p) => n + p.update.length, 0)
    } catch (err) {
      this.o.log.error({ err, docId: this.o.docId }, 'snapshot write failed; the log still holds every update')
    }
  }

  /** Closes every peer (shutdown) and frees the document. Callers flush first. */
  destroy(code: number = CLOSE.goingAway, reason = 'server shutting down'): void {
    if (this.destroyed) return
    this.destroyed = true
    for (const peer of [...this.peers]) {
      this.leave(peer)
      peer.close(code, reason)
    }
    this.awareness.destroy()
    this.doc.destroy()
  }
}

function isPeer(x: unknown): x is Peer {
  return typeof x === 'object' && x !== null && 'awarenessIds' in x && 'socket' in x
}
