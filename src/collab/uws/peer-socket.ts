// One uWS WebSocket as the collab core sees it (a PeerSocket: send, paced send in uWS fragments,
// close) and the native pub/sub as its Transport.
import type uWS from 'uWebSockets.js'
import type { CloseCode } from '@tandem/protocol/close-codes'
import { withName } from '@tandem/protocol/hocuspocus'
import { isPrefixed, type PeerSocket, type Transport } from '../transport.js'
import type { CollabListenerDeps } from '../listener/deps.js'
import { PacedSocket } from '../listener/paced-socket.js'

/**
 * Paced messages go out in fragments of this size, each after the previous one drained. Under
 * uWS's 16 KB cork buffer: a fragment is assembled there and written at once, never copied into
 * the socket's own buffer (whose capacity uWS keeps until the socket closes) unless the kernel
 * refuses part of it. And under 16 KB, so never on uWS's zero-copy path for large sends: in
 * uWebSockets before PR #1662 (2023-09; our build is based on uWS.js 20.30.0) that path lost the
 * frame's payload when the kernel took less than its header, a misaligned stream the client
 * refuses ("RSV2 and RSV3 must be clear", once in about 12 runs of a 50 MB first sync with 32 KB
 * fragments).
 */
const FRAGMENT_BYTES = 16_000
/**
 * uWS's compress hint, on every send. The app never negotiates permessage-deflate (no
 * `compression` option), so nothing is compressed: the hint keeps a whole message of 16 KB or
 * more off the zero-copy path above, on sockets not in pub/sub at that moment.
 */
const HINT = true

export class UwsSocket extends PacedSocket {
  protected readonly fragmentBytes = FRAGMENT_BYTES
  /** while a paced message goes out: the topics it follows, taken off uWS pub/sub (see UwsTransport.pause) */
  pausedTopics: Set<string> | null = null
  constructor(
    readonly ws: uWS.WebSocket<unknown>,
    metrics: CollabListenerDeps['metrics'],
    private readonly transport: UwsTransport,
  ) {
    super(metrics)
  }

  protected write(bytes: Uint8Array): boolean {
    return this.ws.send(bytes, true, HINT) !== 2
  }

  // Each slice is copied only into uWS's cork buffer on its way to the kernel.
  protected writeFragment(bytes: Uint8Array, at: 'first' | 'middle' | 'last'): void {
    if (at === 'first') this.ws.sendFirstFragment(bytes, true, HINT)
    else if (at === 'last') this.ws.sendLastFragment(bytes, HINT)
    else this.ws.sendFragment(bytes, HINT)
  }

  protected queued(): number {
    return this.ws.getBufferedAmount()
  }

  protected end(code: CloseCode, reason: string): void {
    this.ws.end(code, reason)
  }

  protected override pacingStarts(): void {
    this.transport.pause(this)
  }

  protected override pacingEnds(): void {
    this.transport.resume(this)
  }
}

/**
 * uWS native pub/sub, one topic per room. Channels of Hocuspocus sockets subscribe to a twin topic
 * per name, whose frames carry that name first: uWS sends a topic's bytes as they are to every
 * subscriber, so a room with Hocuspocus peers publishes once more per name (usually one:
 * `{org}/{doc_id}`; one per session with the provider's `sessionAwareness`). A room without them
 * publishes once, as before.
 *
 * A socket sending a paced (fragmented) message is taken off every topic it follows until the
 * message is out: uWS would put a topic's frame between two fragments, which no client accepts
 * (a Hocuspocus socket downloading one document while another of its documents is edited). Their
 * frames reach it as sends meanwhile, queued behind the paced message.
 */
export class UwsTransport implements Transport {
  /** per room topic with Hocuspocus channels: per name, its twin topic, prefix and how many subscribed */
  private readonly named = new Map<string, Map<string, Twin>>()
  /** per topic, the sockets taken off it while they send a paced message */
  private readonly paused = new Map<string, Set<UwsSocket>>()

  constructor(private readonly app: uWS.TemplatedApp) {}

  join(socket: PeerSocket, topic: string): void {
    if (!isPrefixed(socket)) {
      this.subscribe(socket as UwsSocket, topic)
      return
    }
    if (socket.subscribed) return
    socket.subscribed = true
    let twins = this.named.get(topic)
    if (!twins) this.named.set(topic, (twins = new Map()))
    let twin = twins.get(socket.name)
    if (!twin)
      twins.set(
        socket.name,
        (twin = { topic: `${NAMED}${topic}\u0000${socket.name}`, prefix: socket.prefix, count: 0 }),
      )
    twin.count++
    this.subscribe(socket.base as UwsSocket, twin.topic)
  }

  leave(socket: PeerSocket, topic: string): void {
    if (!isPrefixed(socket)) {
      this.unsubscribe(socket as UwsSocket, topic)
      return
    }
    if (!socket.subscribed) return
    socket.subscribed = false
    const twins = this.named.get(topic)
    const twin = twins?.get(socket.name)
    if (!twins || !twin) return
    this.unsubscribe(socket.base as UwsSocket, twin.topic)
    if (--twin.count > 0) return
    twins.delete(socket.name)
    if (twins.size === 0) this.named.delete(topic)
  }

  /** A paced message starts on `s`: off uWS pub/sub for every topic it follows. */
  pause(s: UwsSocket): void {
    if (s.pausedTopics) return
    const topics = new Set(s.ws.getTopics())
    s.pausedTopics = topics
    for (const t of topics) {
      s.ws.unsubscribe(t)
      this.addPaused(s, t)
    }
  }

  /** The paced message is out (or the socket closed): back on what it still follows. */
  resume(s: UwsSocket): void {
    const topics = s.pausedTopics
    if (!topics) return
    s.pausedTopics = null
    for (const t of topics) {
      this.forgetPaused(s, t)
      if (!s.closed) s.ws.subscribe(t)
    }
  }

  private subscribe(s: UwsSocket, t: string): void {
    if (s.pausedTopics) {
      s.pausedTopics.add(t)
      this.addPaused(s, t)
    } else if (!s.closed) s.ws.subscribe(t)
  }

  private addPaused(s: UwsSocket, t: string): void {
    let set = this.paused.get(t)
    if (!set) this.paused.set(t, (set = new Set()))
    set.add(s)
  }

  private unsubscribe(s: UwsSocket, t: string): void {
    if (s.pausedTopics?.delete(t)) this.forgetPaused(s, t)
    else if (!s.closed) s.ws.unsubscribe(t)
  }

  private forgetPaused(s: UwsSocket, t: string): void {
    const set = this.paused.get(t)
    if (set?.delete(s) && set.size === 0) this.paused.delete(t)
  }

  /** A topic's frame to the sockets taken off it (queued behind their paced message). */
  private sendPaused(t: string, bytes: Uint8Array, except: UwsSocket | undefined): void {
    const set = this.paused.get(t)
    if (set) for (const s of set) if (s !== except) s.send(bytes)
  }

  publish(topic: string, bytes: Uint8Array, except?: PeerSocket): void {
    const named = except && isPrefixed(except) ? except : null
    const s = named ? undefined : (except as UwsSocket | undefined)
    if (s && !s.closed) s.ws.publish(topic, bytes, true)
    else this.app.publish(topic, bytes, true)
    if (this.paused.size > 0) this.sendPaused(topic, bytes, s)
    const twins = this.named.get(topic)
    if (!twins) return
    const base = named?.base as UwsSocket | undefined
    for (const [name, twin] of twins) {
      const framed = withName(twin.prefix, bytes)
      // The sender's socket is skipped on its own twin only: under another name (a second session
      // of this document) the same socket is a receiver.
      const skip = base && !base.closed && name === named!.name ? base : undefined
      if (skip) skip.ws.publish(twin.topic, framed, true)
      else this.app.publish(twin.topic, framed, true)
      if (this.paused.size > 0) this.sendPaused(twin.topic, framed, skip)
    }
  }
}

/** Topic prefix of the Hocuspocus twins of a room topic (a room topic never starts with it). */
const NAMED = '\u0000h:'

interface Twin {
  /** the uWS topic: NAMED, the room topic, NUL, the name */
  topic: string
  prefix: Uint8Array
  count: number
}
