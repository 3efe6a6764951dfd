// A transport's WebSocket as the collab core sees it (a PeerSocket), with what both transports share:
// paced large sends (sendPaced) that queue every other send behind them, so no frame falls between
// two fragments of a message, and the wait for the socket to drain between fragments. Each transport
// says how to send, fragment, measure and end a socket of its library.
import type { Metrics } from '../../infra/metrics.js'
import type { CloseCode } from '@tandem/protocol/close-codes'
import type { PacedMessage } from '../transport.js'
import type { ListenerSocket } from './sockets.js'

/**
 * How soon a paced send looks again when no drain was reported: a 50 MB answer is thousands of
 * fragments, and at 10 ms a wait one that never saw a drain took 33 s (uWS does not always call
 * drain after a partial write).
 */
const DRAIN_RECHECK_MS = 2

export abstract class PacedSocket implements ListenerSocket {
  closed = false
  /** sends waiting behind a paced message (null when none is going out) */
  private waiting: Uint8Array[] | null = null
  private onDrain: (() => void) | null = null
  /** the listener's: the session ends when the server closes the socket, not when the peer acknowledges it */
  private onClosing: (() => void) | null = null

  // The process's metrics, not closures per socket: thousands of idle sockets each pay for them.
  constructor(protected readonly metrics: Pick<Metrics, 'messagesOut' | 'bytesOut'>) {}

  /** Fragments of a paced message are at most this long, and the next waits until less than this is queued. */
  protected abstract readonly fragmentBytes: number
  /** One whole binary message to the library; false when the socket is gone. */
  protected abstract write(bytes: Uint8Array): boolean
  /** One fragment of a message: the first, a middle one, or the last. */
  protected abstract writeFragment(bytes: Uint8Array, at: 'first' | 'middle' | 'last'): void
  /** Bytes the library holds for this socket (its own buffer and what the kernel did not take). */
  protected abstract queued(): number
  /** Closes the library's socket with a close frame. */
  protected abstract end(code: CloseCode, reason: string): void
  /** Hooks around a paced send (uWS takes the socket off its native pub/sub meanwhile). */
  protected pacingStarts(): void {}
  protected pacingEnds(): void {}

  send(bytes: Uint8Array): boolean {
    if (this.closed) return false
    if (this.waiting) {
      this.waiting.push(bytes)
      return true
    }
    this.metrics.messagesOut.inc()
    this.metrics.bytesOut.inc(bytes.length)
    return this.write(bytes)
  }

  bufferedAmount(): number {
    return this.closed ? 0 : this.queued()
  }

  // A socket library keeps what the kernel did not take at once (uWS: a copy, whose capacity it
  // keeps after it drains; `ws`: the whole body, counted against the backpressure bound). In
  // fragments that each wait for the previous one, the buffer stays a fragment's size.
  async sendPaced(messages: readonly PacedMessage[]): Promise<boolean> {
    if (this.closed) return false
    if (this.waiting) {
      for (const m of messages) this.waiting.push(concat(m.head, m.body))
      return true
    }
    this.waiting = []
    this.pacingStarts()
    try {
      for (const m of messages) if (!(await this.sendFragmented(m.head, m.body))) return false
      return true
    } finally {
      const waiting = this.waiting
      this.waiting = null
      if (!this.closed) for (const b of waiting) this.send(b)
      // after what queued behind it, in the same turn: no publish falls between
      this.pacingEnds()
    }
  }

  private async sendFragmented(head: Uint8Array, body: Uint8Array): Promise<boolean> {
    this.metrics.messagesOut.inc()
    this.metrics.bytesOut.inc(head.length + body.length)
    const size = this.fragmentBytes
    if (body.length <= size) return this.write(concat(head, body))
    // The head (a few bytes) is the first fragment; the body goes out in slices, never concatenated.
    this.writeFragment(head, 'first')
    for (let off = 0; off < body.length; off += size) {
      // Next fragment once less than one is queued; a short timer re-checks where no drain is reported.
      while (!this.closed && this.queued() >= size) await this.drainOrTimeout()
      if (this.closed) return false
      const end = Math.min(body.length, off + size)
      this.writeFragment(body.subarray(off, end), end === body.length ? 'last' : 'middle')
    }
    return true
  }

  private drainOrTimeout(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, DRAIN_RECHECK_MS)
      this.onDrain = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  /** The library drained the socket (and on close): wakes a paced send waiting for room in the buffer. */
  drained(): void {
    const wake = this.onDrain
    this.onDrain = null
    wake?.()
  }

  markClosed(): void {
    this.closed = true
    this.drained()
  }

  /** Called once, when the server closes this socket (before the close handshake completes). */
  whenClosing(fn: () => void): void {
    this.onClosing = fn
  }

  close(code: CloseCode, reason: string): void {
    if (this.closed) return
    this.closed = true
    this.end(code, reason)
    this.drained()
    // A socket the server closed has left its rooms now: `ws` reports the close only once the peer
    // answered the close frame, which a reader too slow to read it did after 30 s (ws's close
    // timer), and the room kept it as a peer meanwhile. uWS calls its close handler at end().
    const closing = this.onClosing
    this.onClosing = null
    closing?.()
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}
