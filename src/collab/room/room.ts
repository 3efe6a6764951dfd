// A room: one loaded document, its peers and their messages. The document is held encoded and
// written through the room's write path (writes.ts: judged, queued for the group commit, broadcast
// once durable); sync answers come from the encoded state (sync.ts), reads that may wait from
// read-state.ts; a Y.Doc is built only for a call that needs content (withDoc), never kept.
import { mergeUpdates, type Doc } from 'yjs'
import { AppError } from '../../infra/errors.js'
import type { Logger } from '../../infra/log.js'
import type { Metrics } from '../../infra/metrics.js'
import { CLOSE, type CloseCode } from '@tandem/protocol/close-codes'
import { encodeAwareness, encodeSyncStep1, encodeUpdate } from '@tandem/protocol/messages'
import type { Attributes, DocStore } from '../../storage/doc-store.js'
import type { GroupCommitter } from '../group-commit.js'
import type { Peer } from '../peer.js'
import type { Transport } from '../transport.js'
import { RoomAwareness, type PresenceSettings } from './awareness.js'
export { presenceSettings } from './awareness.js'
import type { ClusterCompaction } from './compaction.js'
import type { DocBuilds } from './doc-builds.js'
import { Fanout } from './fanout.js'
import { encodeState, readState } from './read-state.js'
import { RoomSync } from './sync.js'
import type { Queued } from './write-queue.js'
import { RoomWrites } from './writes.js'

export interface RoomOptions {
  docId: string
  store: DocStore
  /** the process's one writer; every room of a registry shares it */
  committer: GroupCommitter
  /** the process's transient Y.Docs (withDoc, compaction) */
  docBuilds: DocBuilds
  transport: Transport
  log: Logger
  metrics: Metrics
  now: () => number
  maxDocBytes: number
  compactThreshold: number
  maxBackpressureBytes: number
  /** how long a room keeps its framed full state after the last join that used it (ms) */
  fullStateKeepMs?: number
  /** Cluster mode: the store numbers appends (several nodes write one document). */
  cluster?: ClusterCompaction
  /** awareness windows and bounds (default PRESENCE_DEFAULTS) */
  presence?: PresenceSettings
}

const EMPTY_UPDATE_MAX = 2 // an update with no structs and no deletions encodes as [0, 0]

export class Room {
  readonly peers = new Set<Peer>()
  /** transient holders (REST calls, API reads) keeping the room loaded; see RoomRegistry.acquire */
  holds = 0
  destroyed = false
  private readonly writes: RoomWrites
  private readonly fanout: Fanout
  private readonly presence: RoomAwareness
  private readonly sync: RoomSync

  constructor(private readonly o: RoomOptions) {
    this.fanout = new Fanout(
      o.transport,
      o.docId,
      o.maxBackpressureBytes,
      () => this.peers,
      (p) => this.leave(p),
    )
    this.presence = new RoomAwareness((frame) => o.transport.publish(o.docId, frame), o.presence)
    this.writes = new RoomWrites({
      ...o,
      changed: () => this.sync.invalidate(),
      landed: (batch) => this.broadcast(batch),
      live: () => !this.destroyed,
    })
    this.sync = new RoomSync({
      docId: o.docId,
      transport: o.transport,
      state: () => this.writes.state,
      flushed: () => this.writes.flushed(),
      isMember: (p) => !this.destroyed && this.peers.has(p),
      sendAwarenessTo: (p) => this.sendAwarenessTo(p),
      fullStateKeepMs: o.fullStateKeepMs ?? 0,
    })
  }

  get docId(): string {
    return this.o.docId
  }

  /** the room's awareness (the cluster link relays it) */
  get awareness(): RoomAwareness {
    return this.presence
  }

  /** the highest seq this room wrote or loaded */
  get headSeq(): number {
    return this.writes.headSeq
  }

  get idle(): boolean {
    return this.peers.size === 0 && this.holds === 0
  }

  /** whether the encoded full state is held (dropped sync-cache-ms after the last join using it) */
  get holdsFullState(): boolean {
    return this.sync.holdsFullState
  }

  get hasUnflushed(): boolean {
    return this.writes.hasUnflushed
  }

  /** What the room holds in memory: the encoded document, held updates, unwritten updates, cached frames. */
  get bytes(): number {
    return this.writes.bytes + this.sync.cachedBytes
  }

  /** Reads the document from storage. Runs once, before any peer joins. */
  async load(seedFrom?: () => Promise<Uint8Array | null>, seedUser = 'system'): Promise<void> {
    await this.writes.load()
    if (this.writes.headSeq === 0 && seedFrom) {
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
    peer.send(encodeSyncStep1(this.writes.state.stateVector()))
    this.sendAwarenessTo(peer)
  }

  leave(peer: Peer): void {
    if (!this.peers.delete(peer)) return
    this.o.transport.leave(peer.socket, this.o.docId)
    this.presence.forget(peer)
  }

  /** Sync step 1 from a peer: answer with what it lacks, once everything accepted is durable. */
  answerSyncStep1(peer: Peer, stateVector: Uint8Array): Promise<void> {
    return this.sync.answer(peer, stateVector)
  }

  /** A document update from a peer (sync step 2 or update). */
  receiveUpdate(peer: Peer, update: Uint8Array, isStep2: boolean): void {
    if (!peer.canWrite) {
      // A read-only client's sync step 2 is empty, or carries the pending structs it was sent
      // (held updates); anything else is refused.
      if (isStep2 && (update.length <= EMPTY_UPDATE_MAX || this.containsQuietly(update))) return
      peer.writeRefused()
      return
    }
    if (this.destroyed) return
    // No promise per update from a socket: nobody waits on it, the broadcast is the answer.
    this.writes.ingest(update, peer.cap.sub, peer, peer.cap.attr)
  }

  /**
   * An update from a peer that is told once it is durable (Hocuspocus's SyncStatus): `done` is
   * settled by the write cycle that stores it, or, when it changed nothing, once what it may
   * duplicate is durable. The caller checks write access; a malformed update throws, untouched.
   */
  receiveAcked(peer: Peer, update: Uint8Array, done: NonNullable<Queued['done']>): void {
    if (this.destroyed) return done.reject(new AppError('unavailable', 'room is closing'))
    const queued = this.writes.ingest(update, peer.cap.sub, peer, peer.cap.attr)
    if (queued) queued.done = done
    else this.flushed().then(() => done.resolve(), done.reject)
  }

  /** Whether the document already holds all of `update`, served or held (a read-only peer's sync step 2). */
  contains(update: Uint8Array): boolean {
    return this.writes.contains(update)
  }

  /** contains(), false for a malformed update (a read-only peer is refused either way). */
  private containsQuietly(update: Uint8Array): boolean {
    try {
      return this.contains(update)
    } catch {
      return false
    }
  }

  receiveAwareness(peer: Peer, update: Uint8Array): void {
    this.presence.receive(peer, update)
  }

  /**
   * An awareness update sent over REST: applied as a peer's would be (every live client hears it,
   * in cluster mode every node). Its clients belong to no socket, so they go when they stop
   * renewing (the 30 s outdated timeout) or send a null state.
   */
  applyRestAwareness(update: Uint8Array): void {
    this.presence.receiveRest(update)
  }

  /** Every awareness state the room knows (its peers', other nodes', REST callers'), or null when none. */
  encodeAwarenessStates(): Uint8Array | null {
    return this.presence.encodeAll()
  }

  sendAwarenessTo(peer: Peer): void {
    const all = this.presence.encodeAll()
    if (all) peer.send(encodeAwareness(all))
  }

  // ---- the document --------------------------------------------------------------------------

  /** The document as one update (everything served), or what a state vector lacks. */
  encodeState(stateVector?: Uint8Array): Uint8Array {
    return encodeState(this.writes.state, stateVector)
  }

  /**
   * encodeState for reads that may wait (REST, versions): a large document is merged beside the loop (read-state.ts).
   */
  readState(stateVector?: Uint8Array): Promise<Uint8Array> {
    return readState(this.writes.state, this.o.docBuilds, stateVector)
  }

  /** Runs `read` with a Y.Doc of the document, built for the call and destroyed after. */
  withDoc<T>(read: (doc: Doc) => T | Promise<T>): Promise<T> {
    return this.o.docBuilds.with(() => this.writes.state.full(), read)
  }

  /**
   * Validates an update, queues it for the next batched write, and resolves once it is durable
   * and broadcast, with its seq in the log (null: it changed nothing, so nothing was logged).
   * Malformed or oversized updates throw before touching the document.
   */
  applyUpdate(update: Uint8Array, user: string, origin: Peer | null, attrs?: Attributes): Promise<number | null> {
    if (this.destroyed) return Promise.reject(new AppError('unavailable', 'room is closing'))
    const queued = this.writes.ingest(update, user, origin, attrs)
    // Nothing new: the caller still learns of success only once what it may have duplicated
    // (accepted from someone else, not yet written) is durable.
    if (!queued) return this.flushed().then(() => null)
    return new Promise<number | null>((resolve, reject) => {
      queued.done = { resolve: (seq) => resolve(seq ?? null), reject }
    })
  }

  /**
   * An update another node committed (or one read back from storage by a resync): taken into the
   * document and sent to this node's sockets; never appended again here.
   */
  applyRemote(update: Uint8Array): void {
    if (this.destroyed || !this.writes.takeRemote(update)) return
    this.fanout.publish(encodeUpdate(update))
  }

  /** Resolves when every update accepted so far is durable. */
  flushed(): Promise<void> {
    return this.writes.flushed()
  }

  /** One message per write cycle for everyone: the batch merged, skipped only for a sole author. */
  private broadcast(batch: Queued[]): void {
    const only = batch[0]!.origin
    let soleAuthor: Peer | null = only
    for (let i = 1; i < batch.length && soleAuthor; i++) if (batch[i]!.origin !== only) soleAuthor = null
    const update = batch.length === 1 ? batch[0]!.update : mergeBatch(batch)
    this.presence.flushWithBroadcast() // pending awareness rides along: one write per socket
    this.fanout.publish(encodeUpdate(update), soleAuthor?.socket)
  }

  /** Writes the current state as a snapshot covering what is durable (see Compaction). */
  compact(): Promise<void> {
    return this.writes.compact()
  }

  /**
   * The document was erased (hard delete): what is queued is dropped unwritten, its callers fail,
   * the peers are closed with `code`. A write already in flight still lands (the eraser waits for
   * it with `flushed()` and erases after); a failed one is not retried.
   */
  discard(code: CloseCode, reason: string): void {
    this.writes.discard()
    this.destroy(code, reason)
  }

  /** Closes every peer (shutdown) and frees the document. Callers flush first. */
  destroy(code: CloseCode = CLOSE.goingAway, reason = 'server shutting down'): void {
    if (this.destroyed) return
    this.destroyed = true
    for (const peer of [...this.peers]) {
      this.leave(peer)
      peer.close(code, reason)
    }
    this.sync.invalidate()
    this.presence.close()
    this.writes.free()
  }
}

function mergeBatch(batch: Queued[]): Uint8Array {
  return mergeUpdates(batch.map((p) => p.update))
}
