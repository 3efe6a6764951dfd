// One `ws` WebSocket as the collab core sees it (a PeerSocket): whole messages with ws's send, paced
// messages as ws fragments (`fin: false`), each written once the one before left the process, and
// what the listener's sweep needs for the idle timeout (when a frame last came in, a ping sent).
// `ws` frames a send as a header plus the caller's bytes, written without a copy: a whole 50 MB body
// handed to it would stay referenced and counted in bufferedAmount until the kernel took it, past
// the backpressure bound, so large messages are paced here as on uWS.
import type { WebSocket } from 'ws'
import type { Metrics } from '../../infra/metrics.js'
import { CLOSE, type CloseCode } from '@tandem/protocol/close-codes'
import { PacedSocket } from '../listener/paced-socket.js'

/**
 * Fragments of a paced message. No cork buffer to stay under (uWS's 16 KB): a fragment is written
 * from the body as it is, so the size only bounds what one socket holds queued (the socket's
 * high-water mark is 16 KB; four of its writes a fragment).
 */
const FRAGMENT_BYTES = 64 * 1024

export class WsSocket extends PacedSocket {
  protected readonly fragmentBytes = FRAGMENT_BYTES
  /** when a frame (message, ping or pong) last came in, in ms of `now` */
  lastSeen: number
  /** a ping went out since lastSeen */
  pinged = false
  /** the drain callback of every write: one function per socket, not a closure per fragment */
  private readonly wake = (): void => this.drained()

  constructor(
    readonly ws: WebSocket,
    metrics: Pick<Metrics, 'messagesOut' | 'bytesOut'>,
    /** the hard stop: a send that leaves more than this queued closes the socket (uWS's closeOnBackpressureLimit) */
    private readonly maxQueued: number,
    private readonly now: () => number,
  ) {
    super(metrics)
    this.lastSeen = now()
    ws.on('pong', this.seen)
    ws.on('ping', this.seen)
  }

  /** A frame came in: a message (the listener's handler), a ping or a pong. */
  readonly seen = (): void => {
    this.lastSeen = this.now()
    this.pinged = false
  }

  protected write(bytes: Uint8Array): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false
    this.ws.send(bytes, { binary: true })
    if (this.ws.bufferedAmount > this.maxQueued) this.close(CLOSE.tryAgainLater, 'backpressure limit reached')
    return true
  }

  protected writeFragment(bytes: Uint8Array, at: 'first' | 'middle' | 'last'): void {
    this.ws.send(bytes, { binary: true, fin: at === 'last' }, this.wake)
  }

  protected queued(): number {
    return this.ws.bufferedAmount
  }

  protected end(code: CloseCode, reason: string): void {
    this.ws.close(code, clipReason(reason))
  }
}

/** A close frame's reason is at most 123 bytes (ws throws on a longer one): cut on a character boundary. */
export function clipReason(reason: string): string {
  const bytes = Buffer.from(reason)
  return bytes.length <= 123 ? reason : new TextDecoder().decode(bytes.subarray(0, 120)).replace(/\uFFFD$/, '')
}
