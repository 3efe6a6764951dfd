// How a room reaches its sockets. The collab core sees only this and PeerSocket; the uWS transport
// implements it with native pub/sub (one C++ loop per broadcast), the ws transport (and the tests'
// and admin's rooms without sockets) with LoopTransport's plain sends.
import type { Capability } from '../auth/capability.js'
import type { CloseCode } from '@tandem/protocol/close-codes'
import { withName } from '@tandem/protocol/hocuspocus'

export interface PeerSocket {
  /** Sends one binary message; false when the socket is gone. */
  send(bytes: Uint8Array): boolean
  close(code: CloseCode, reason: string): void
  /** Bytes queued for this socket and not yet written to the network. */
  bufferedAmount(): number
  /**
   * Sends large messages, each its `head` then its `body`, in fragments, each once the socket has
   * drained, so no large copy sits in the socket library's buffer and no body is copied into a
   * frame; sends made meanwhile wait behind the last of them. Resolves false if the socket
   * closed. Optional: sockets without it get each message in one `send`.
   */
  sendPaced?(messages: readonly PacedMessage[]): Promise<boolean>
}

/**
 * What a room tells one peer beyond sync and awareness (which both protocols carry as y-protocols
 * messages), each protocol in its own words: y-websocket a permission-denied message, Hocuspocus
 * Authenticated with the narrower scope. Stateless, one per protocol.
 */
export interface ReadOnlyNotices {
  /** a write of the peer was refused: its capability is read-only */
  writeRefused(socket: PeerSocket, cap: Capability): void
  /** the deny-list narrowed its capability to read-only (edit became view) */
  narrowed(socket: PeerSocket, cap: Capability): void
}

/** One message of a paced send: a few head bytes (the frame's start) and the body, sent as it is. */
export interface PacedMessage {
  head: Uint8Array
  body: Uint8Array
}

/**
 * One document's share of a socket that carries several (a Hocuspocus socket): it goes out over
 * `base`, every frame behind `prefix` (its encoded `name`). The name is the room's `{org}/{doc_id}`,
 * or with the provider's `sessionAwareness` `{org}/{doc_id}\0{session}`: one socket may then hold
 * several channels of one room, each with its own name.
 */
export interface PrefixedSocket extends PeerSocket {
  readonly base: PeerSocket
  readonly name: string
  readonly prefix: Uint8Array
  /** whether the transport has it on its room topic (kept by the transport: join and leave may repeat) */
  subscribed: boolean
  /** Sends a frame that already carries this channel's name (a broadcast framed once per name); false when closed. */
  sendNamed(framed: Uint8Array): boolean
}

export function isPrefixed(socket: PeerSocket): socket is PrefixedSocket {
  return 'prefix' in socket
}

export interface Transport {
  /** Subscribes the socket to a room topic (it leaves on close). */
  join(socket: PeerSocket, topic: string): void
  leave(socket: PeerSocket, topic: string): void
  /** Sends to every subscriber of the topic, but `except` when given. */
  publish(topic: string, bytes: Uint8Array, except?: PeerSocket): void
}

/** Transport over plain `send` calls, for sockets that have no native pub/sub. */
export class LoopTransport implements Transport {
  private topics = new Map<string, Set<PeerSocket>>()

  join(socket: PeerSocket, topic: string): void {
    let set = this.topics.get(topic)
    if (!set) this.topics.set(topic, (set = new Set()))
    set.add(socket)
  }

  leave(socket: PeerSocket, topic: string): void {
    const set = this.topics.get(topic)
    set?.delete(socket)
    if (set?.size === 0) this.topics.delete(topic)
  }

  publish(topic: string, bytes: Uint8Array, except?: PeerSocket): void {
    // Hocuspocus channels get the frame behind their document's name: framed once per name, as
    // uWS publishes once per twin topic, not copied once per receiver.
    let named: Map<string, Uint8Array> | undefined
    for (const s of this.topics.get(topic) ?? []) {
      if (s === except) continue
      if (!isPrefixed(s)) {
        s.send(bytes)
        continue
      }
      named ??= new Map()
      let framed = named.get(s.name)
      if (!framed) named.set(s.name, (framed = withName(s.prefix, bytes)))
      s.sendNamed(framed)
    }
  }
}
