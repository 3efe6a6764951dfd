// One document's share of a Hocuspocus socket, as a room sees a socket: what the room sends goes out
// behind the document's name; closing it ends that document on the socket (its owner decides
// whether the whole socket must go). A channel serves one join: a re-admitted document gets a new one.
import { encodeAuthenticated, withName, type HocusScope } from '../../protocol/hocuspocus.js'
import type { CloseCode } from '../../protocol/close-codes.js'
import type { PacedMessage, PeerSocket, PrefixedSocket } from '../transport.js'

/** y-websocket's Auth message type: the room's only Auth frame to a joined peer is the notice of a token narrowed to read-only. */
const YWS_AUTH = 2

export interface ChannelOwner {
  /** the scope the document's current capability gives */
  scope(): HocusScope
  /** the room (or the expiry clock, the deny-list) closed this document's peer */
  ended(code: number, reason: string): void
}

export class DocChannel implements PrefixedSocket {
  subscribed = false
  closed = false

  constructor(
    readonly base: PeerSocket,
    readonly name: string,
    readonly prefix: Uint8Array,
    private readonly owner: ChannelOwner,
  ) {}

  send(bytes: Uint8Array): boolean {
    if (this.closed) return false
    // Hocuspocus says a narrowed scope with Authenticated; y-websocket's permission notice would
    // read as a token request here.
    if (bytes[0] === YWS_AUTH) return this.base.send(encodeAuthenticated(this.prefix, this.owner.scope()))
    return this.base.send(withName(this.prefix, bytes))
  }

  bufferedAmount(): number {
    return this.base.bufferedAmount()
  }

  sendPaced(messages: readonly PacedMessage[]): Promise<boolean> {
    if (this.closed) return Promise.resolve(false)
    // the document's name goes before each head: the bodies (a whole document) are never copied
    const named = messages.map((m) => ({ head: withName(this.prefix, m.head), body: m.body }))
    if (this.base.sendPaced) return this.base.sendPaced(named)
    for (const m of named) {
      const whole = new Uint8Array(m.head.length + m.body.length)
      whole.set(m.head)
      whole.set(m.body, m.head.length)
      if (!this.base.send(whole)) return Promise.resolve(false)
    }
    return Promise.resolve(true)
  }

  close(code: CloseCode, reason: string): void {
    if (this.closed) return
    this.closed = true
    this.owner.ended(code, reason)
  }
}
