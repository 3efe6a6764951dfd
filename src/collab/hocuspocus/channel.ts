// One document's share of a Hocuspocus socket, as a room sees a socket: the room's sync and
// awareness frames (y-protocols messages, which Hocuspocus carries as they are) go out behind the
// document's name; what the room tells the peer otherwise comes through its read-only notices, in Hocuspocus's
// words. Closing the channel ends that document's join (its session decides whether the whole socket
// must go). A channel serves one join: a re-admitted document gets a new one.
import type { Capability } from '../../auth/capability.js'
import type { CloseCode } from '@tandem/protocol/close-codes'
import { encodeAuthenticated, withName, type HocusScope } from '@tandem/protocol/hocuspocus'
import type { SocketOwner } from '../session/codec.js'
import type { PacedMessage, PeerSocket, ReadOnlyNotices, PrefixedSocket } from '../transport.js'

export const scopeOf = (cap: Capability): HocusScope => (cap.acc === 'rw' ? 'read-write' : 'readonly')

/** Hocuspocus says a read-only capability with Authenticated `readonly` (a PermissionDenied would end the document). */
export const HOCUS_READ_ONLY_NOTICES: ReadOnlyNotices = {
  writeRefused: (socket, cap) => sayScope(socket, cap),
  narrowed: (socket, cap) => sayScope(socket, cap),
}

function sayScope(socket: PeerSocket, cap: Capability): void {
  if (socket instanceof DocChannel && !socket.closed) socket.base.send(encodeAuthenticated(socket.prefix, scopeOf(cap)))
}

export class DocChannel implements PrefixedSocket {
  subscribed = false
  closed = false

  constructor(
    readonly base: PeerSocket,
    readonly name: string,
    readonly prefix: Uint8Array,
    private readonly owner: SocketOwner,
  ) {}

  send(bytes: Uint8Array): boolean {
    if (this.closed) return false
    return this.base.send(withName(this.prefix, bytes))
  }

  sendNamed(framed: Uint8Array): boolean {
    if (this.closed) return false
    return this.base.send(framed)
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
    this.owner.peerClosed(this, code, reason)
  }
}
