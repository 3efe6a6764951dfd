// Answers to a peer's sync step 1, computed from the encoded document. A small document's full
// state is framed once and shared by overlapping joins (FullStateCache). A large answer goes out
// paced (its head, then the body as held, in fragments, each after a drain: no copy of the
// document); no broadcast may land between the fragments of one message, so the peer leaves the
// room's topic meanwhile, then gets what changed (once durable) and the awareness states, and
// rejoins.
import * as Y from 'yjs'
import { AppError } from '../../infra/errors.js'
import { encodeSyncStep2, encodeUpdate, syncHead } from '@tandem/protocol/messages'
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
    const empty = stateVector.length === 1 && stateVector[0] === 0
    const paced = peer.socket.sendPaced !== undefined && !this.pacing.has(peer)
    const large = paced && state.servedBytes > PACED_SYNC_BYTES
    if (empty && !large) {
      const message = this.fullState.acquire()
      try {
        peer.send(message)
      } finally {
        this.fullState.release()
      }
      return
    }
    let parts: Uint8Array[]
    try {
      // A large document goes out as it is held, part by part: nothing merged, nothing copied.
      // Every answer carries what is held, as a Y.Doc's carries its pending structs: a peer that
      // joins during a gap has them when it fills.
      parts = empty
        ? state.answerParts()
        : large
          ? state.answerParts(stateVector).filter(hasContent)
          : [state.diff(stateVector)]
    } catch {
      throw new AppError('malformed_message', 'invalid state vector')
    }
    let bytes = 0
    for (const p of parts) bytes += p.length
    if (large && bytes > PACED_SYNC_BYTES) return this.sendPaced(peer, parts)
    // (behind a paced answer still going out, the socket queues it)
    peer.send(
      encodeSyncStep2(parts.length === 0 ? EMPTY_UPDATE : parts.length === 1 ? parts[0]! : Y.mergeUpdates(parts)),
    )
  }

  /**
   * Sends `parts` (the state, or what the peer lacks, in the order it was taken) paced: every part
   * but the last as an update, the last as the sync step 2, so a provider counts as synced once
   * it holds everything and never holds a part whose dependencies are still to come.
   */
  private async sendPaced(peer: Peer, parts: Uint8Array[]): Promise<void> {
    const state = this.o.state()
    const stateVector = state.stateVector()
    const version = state.version
    this.pacing.add(peer)
    this.o.transport.leave(peer.socket, this.o.docId)
    try {
      const messages = parts.map((body, i) => ({
        head: syncHead(i === parts.length - 1 ? 'sync-step2' : 'sync-update', body.length),
        body,
      }))
      if (!(await peer.socket.sendPaced!(messages))) return
      await this.o.flushed()
    } finally {
      this.pacing.delete(peer)
    }
    if (peer.closed || !this.o.isMember(peer)) return
    // Synchronous from here: everything accepted is durable, so the catch-up shows nothing a
    // crash could lose, and updates after it arrive through the topic. The catch-up is what
    // changed while the peer was out of the topic, held updates included (a version counts them).
    const now = this.o.state()
    if (now.version !== version || now !== state) peer.send(encodeUpdate(now.diff(stateVector)))
    this.o.transport.join(peer.socket, this.o.docId)
    this.o.sendAwarenessTo(peer)
  }
}

const EMPTY_UPDATE = Uint8Array.of(0, 0)

/** Whether a diff carries structs or deletions (an empty one is [0, 0]). */
function hasContent(update: Uint8Array): boolean {
  return update.length > 2
}
