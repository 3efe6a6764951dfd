// One uWS WebSocket as the collab core sees it (a PeerSocket: send, paced send, close) and the
// native pub/sub as its Transport.
import type uWS from 'uWebSockets.js'
import { withName } from '../../protocol/hocuspocus.js'
import { isPrefixed, type PacedMessage, type PeerSocket, type Transport } from '../transport.js'
import type { CollabListenerDeps } from './deps.js'

/** Paced messages go out in fragments of this size, each after the previous one drained. */
const FRAGMENT_BYTES = 32 * 1024
/**
 * How soon a paced send looks again when uWS did not call drain: a 50 MB answer is 1,600
 * fragments, and at 10 ms a wait one that never saw a drain took 16 s.
 */
const DRAIN_RECHECK_MS = 2

export class UwsSocket implements PeerSocket {
  closed = false
  /** sends waiting behind a paced message (null when none is going out) */
  private waiting: Uint8Array[] | null = null
  private onDrain: (() => void) | null = null
  // The process's metrics, not a closure per socket: thousands of idle sockets each pay for it.
  constructor(
    readonly ws: uWS.WebSocket<unknown>,
    private readonly metrics: CollabListenerDeps['metrics'],
  ) {}

  send(bytes: Uint8Array): boolean {
    if (this.closed) return false
    if (this.waiting) {
      this.waiting.push(bytes)
      return true
    }
    this.metrics.messagesOut.inc()
    this.metrics.bytesOut.inc(bytes.length)
    return this.ws.send(bytes, true) !== 2
  }

  bufferedAmount(): number {
    return this.closed ? 0 : this.ws.getBufferedAmount()
  }

  // uWS keeps the capacity of a socket's send buffer after it drains: one 1 MB sync step 2
  // that the kernel did not take at once left ~1.4 MB per socket (connect storms: GBs). In
  // fragments that each wait for the previous one, the buffer stays a fragment's size.
  async sendPaced(messages: readonly PacedMessage[]): Promise<boolean> {
    if (this.closed) return false
    if (this.waiting) {
      for (const m of messages) this.waiting.push(concat(m.head, m.body))
      return true
    }
    this.waiting = []
    try {
      for (const m of messages) if (!(await this.sendFragmented(m.head, m.body))) return false
      return true
    } finally {
      const waiting = this.waiting
      this.waiting = null
      if (!this.closed) for (const b of waiting) this.send(b)
    }
  }

  private async sendFragmented(head: Uint8Array, body: Uint8Array): Promise<boolean> {
    this.metrics.messagesOut.inc()
    this.metrics.bytesOut.inc(head.length + body.length)
    if (body.length <= FRAGMENT_BYTES) return this.ws.send(concat(head, body), true) !== 2
    // The head (a few bytes) is the first fragment: the body goes out as it is, never copied.
    this.ws.sendFirstFragment(head, true)
    for (let off = 0; off < body.length; off += FRAGMENT_BYTES) {
      // Next fragment once less than one is queued. uWS does not always call drain after a
      // partial write (seen with fragments), so a short timer re-checks too.
      while (!this.closed && this.ws.getBufferedAmount() >= FRAGMENT_BYTES) await this.drainOrTimeout()
      if (this.closed) return false
      const end = Math.min(body.length, off + FRAGMENT_BYTES)
      const part = body.subarray(off, end)
      if (end === body.length) this.ws.sendLastFragment(part)
      else this.ws.sendFragment(part)
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

  /** uWS drain callback, and close: wakes a paced send waiting for room in the buffer. */
  drained(): void {
    const wake = this.onDrain
    this.onDrain = null
    wake?.()
  }

  markClosed(): void {
    this.closed = true
    this.drained()
  }

  close(code: number, reason: string): void {
    if (this.closed) return
    this.closed = true
    this.ws.end(code, reason)
    this.drained()
  }
}

/**
 * uWS native pub/sub, one topic per room. Channels of Hocuspocus sockets subscribe to a twin topic
 * whose frames carry the document name first: uWS sends a topic's bytes as they are to every
 * subscriber, so a room with Hocuspocus peers publishes twice (the second time with the name
 * before the frame). A room without them publishes once, as before.
 */
export class UwsTransport implements Transport {
  /** per room topic with Hocuspocus channels: their prefix and how many subscribed */
  private readonly named = new Map<string, { prefix: Uint8Array; count: number }>()

  constructor(private readonly app: uWS.TemplatedApp) {}

  join(socket: PeerSocket, topic: string): void {
    if (!isPrefixed(socket)) {
      ;(socket as UwsSocket).ws.subscribe(topic)
      return
    }
    if (socket.subscribed) return
    socket.subscribed = true
    ;(socket.base as UwsSocket).ws.subscribe(NAMED + topic)
    const entry = this.named.get(topic)
    if (entry) entry.count++
    else this.named.set(topic, { prefix: socket.prefix, count: 1 })
  }

  leave(socket: PeerSocket, topic: string): void {
    if (!isPrefixed(socket)) {
      const s = socket as UwsSocket
      if (!s.closed) s.ws.unsubscribe(topic)
      return
    }
    if (!socket.subscribed) return
    socket.subscribed = false
    const base = socket.base as UwsSocket
    if (!base.closed) base.ws.unsubscribe(NAMED + topic)
    const entry = this.named.get(topic)
    if (entry && --entry.count === 0) this.named.delete(topic)
  }

  publish(topic: string, bytes: Uint8Array, except?: PeerSocket): void {
    const named = except && isPrefixed(except) ? except : null
    const s = named ? undefined : (except as UwsSocket | undefined)
    if (s && !s.closed) s.ws.publish(topic, bytes, true)
    else this.app.publish(topic, bytes, true)
    const entry = this.named.get(topic)
    if (!entry) return
    const framed = withName(entry.prefix, bytes)
    const base = named?.base as UwsSocket | undefined
    if (base && !base.closed) base.ws.publish(NAMED + topic, framed, true)
    else this.app.publish(NAMED + topic, framed, true)
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

/** Topic prefix of the Hocuspocus twin of a room topic (a room topic never starts with it). */
const NAMED = '\u0000h:'
