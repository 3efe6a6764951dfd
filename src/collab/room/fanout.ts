// Sending to a room's sockets, with the room's one slow-peer policy: a peer whose queue passed the
// backpressure limit is closed (1013) rather than let fall behind silently. Walking every peer
// after every send costs O(peers) per update (1.2% of the server's CPU with 1,000 rooms even at
// one walk per 50 ms), and a queue only grows by what was sent, so the walk waits for half the
// limit's worth of bytes (no peer jumps from under the limit to uWS's hard stop, 4x, unseen) or
// a second.
import { CLOSE } from '@tandem/protocol/close-codes'
import type { Peer } from '../peer.js'
import type { PeerSocket, Transport } from '../transport.js'

const SLOW_PEER_CHECK_MS = 1000

export class Fanout {
  private lastCheck = 0
  private bytesSinceCheck = 0

  constructor(
    private readonly transport: Transport,
    private readonly topic: string,
    private readonly maxBackpressureBytes: number,
    /** the room's peers, and how one leaves */
    private readonly peers: () => Iterable<Peer>,
    private readonly leave: (peer: Peer) => void,
  ) {}

  /** Sends `frame` to every subscribed socket but `except`, then checks for slow peers when due. */
  publish(frame: Uint8Array, except?: PeerSocket): void {
    this.transport.publish(this.topic, frame, except)
    this.bytesSinceCheck += frame.length
    const now = performance.now()
    if (this.bytesSinceCheck * 2 >= this.maxBackpressureBytes || now - this.lastCheck >= SLOW_PEER_CHECK_MS) {
      this.lastCheck = now
      this.bytesSinceCheck = 0
      this.closeSlowPeers()
    }
  }

  closeSlowPeers(): void {
    for (const peer of [...this.peers()]) {
      if (peer.socket.bufferedAmount() > this.maxBackpressureBytes) {
        this.leave(peer)
        peer.close(CLOSE.tryAgainLater, 'backpressure limit reached: reconnect to resync')
      }
    }
  }
}
