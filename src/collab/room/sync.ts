// Answers to a peer's sync step 1, computed from the encoded document. An empty state vector gets
// the framed full state, shared by overlapping joins (FullStateCache). A large answer goes out
// paced (fragments, each after a drain); no broadcast may land between the fragments of one
// message, so the peer leaves the room's topic meanwhile, then gets what changed (once durable)
// and the awareness states, and rejoins.
import { AppError } from '../../infra/errors.js'
import { encodeSyncStep2, encodeUpdate } from '../../protocol/messages.js'
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
    if (stateVector.length === 1 && stateVector[0] === 0) {
      const message = this.fullState.acquire()
      try {
        return await this.send(peer, message)
      } finally {
        this.fullState.release()
      }
    }
    let message: Uint8Array
    try {
      message = encodeSyncStep2(this.o.state().diff(stateVector))
    } catch {
      throw new AppError('malformed_message', 'invalid state vector')
    }
    await this.send(peer, message)
  }

  private async send(peer: Peer, message: Uint8Array): Promise<void> {
    if (message.length <= PACED_SYNC_BYTES || !peer.socket.sendPaced || this.pacing.has(peer)) {
      peer.send(message) // (behind a paced answer still going out, the socket queues it)
      return
    }
    const state = this.o.state()
    const stateVector = state.stateVector()
    const version = state.version
    this.pacing.add(peer)
    this.o.transport.leave(peer.socket, this.o.docId)
    try {
      if (!(await peer.socket.sendPaced(message))) return
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
