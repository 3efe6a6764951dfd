// Answers to a peer's sync step 1, computed from the encoded document. A small document's full
// state is framed once and shared by overlapping joins (FullStateCache). A large answer goes out
// paced (its head, then the body as held, in fragments, each after a drain: no copy of the
// document); no broadcast may land between the fragments of one message, so the peer leaves the
// room's topic meanwhile, then gets what changed (once durable) and the awareness states, and
// rejoins.
import { AppError } from '../../infra/errors.js'
import { encodeSyncStep2, encodeUpdate, syncHead } from '../../protocol/messages.js'
import { FullStateCache } from '../full-state-cache.js'
import type { Peer } from '../peer.js'
import type { Transport } from '../transport.js'
import type { DocState } from './doc-state.js'

/** Sync answers larger than this go out paced. */
const PACED_SYNC_BYTES = 64 * 1024

export interface RoomSyncOptions {
  docId: string
  transport: Transport
  state: () => DocState
  flushed: () => Promise<void>
  /** whether the peer is still in a live room */
  isMember: (peer: Peer) => boolean
  sendAwarenessTo: (peer: Peer) => void
  fullStateKeepMs: number
}

export class RoomSync {
  /** peers receiving a paced answer, outside the room's topic meanwhile */
  private pacing = new Set<Peer>()
  private readonly fullState: FullStateCache

  constructor(private readonly o: RoomSyncOptions) {
    this.fullState = new FullStateCache(() => encodeSyncStep2(o.state().full()), o.fullStateKeepMs)
  }

  get holdsFullState(): boolean {
    return this.fullState.held
  }

  /** bytes of the framed full state while it is kept */
  get cachedBytes(): number {
    return this.fullState.bytes
  }

  /** The served document changed: the framed full state is stale. */
  invalidate(): void {
    this.fullState.invalidate()
  }

  /** Answers with what the peer lacks, once everything accepted is durable. */
  async answer(peer: Peer, stateVector: Uint8Array): Promise<void> {
    await this.o.flushed()
    if (peer.closed) return
    const state = this.o.state()
    if (stateVector.length === 1 && stateVector[0] === 0) {
      // A large document goes out as it is held (no frame copy, nothing cached beside it).
      const full = state.full()
      if (this.pacedFor(peer, full)) return this.sendPaced(peer, syncHead('sync-step2', full.length), full)
      const message = this.fullState.acquire()
      try {
        peer.send(message)
      } finally {
        this.fullState.release()
      }
      return
    }
    let diff: Uint8Array
    try {
      diff = state.diff(stateVector)
    } catch {
      throw new AppError('malformed_message', 'invalid state vector')
    }
    if (this.pacedFor(peer, diff)) return this.sendPaced(peer, syncHead('sync-step2', diff.length), diff)
    peer.send(encodeSyncStep2(diff)) // (behind a paced answer still going out, the socket queues it)
  }

  private pacedFor(peer: Peer, body: Uint8Array): boolean {
    return body.length > PACED_SYNC_BYTES && peer.socket.sendPaced !== undefined && !this.pacing.has(peer)
  }

  private async sendPaced(peer: Peer, head: Uint8Array, body: Uint8Array): Promise<void> {
    const state = this.o.state()
    const stateVector = state.stateVector()
    const version = state.version
    this.pacing.add(peer)
    this.o.transport.leave(peer.socket, this.o.docId)
    try {
      if (!(await peer.socket.sendPaced!(head, body))) return
      await this.o.flushed()
    } finally {
      this.pacing.delete(peer)
    }
    if (peer.closed || !this.o.isMember(peer)) return
    // Synchronous from here: everything accepted is durable, so the catch-up shows nothing a
    // crash could lose, and updates after it arrive through the topic.
    const now = this.o.state()
    if (now.version !== version || now !== state) peer.send(encodeUpdate(now.diff(stateVector)))
    this.o.transport.join(peer.socket, this.o.docId)
    this.o.sendAwarenessTo(peer)
  }
}
