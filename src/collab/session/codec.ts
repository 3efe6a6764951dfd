// What a protocol is to a document session: a codec. It turns its frames into meanings (the
// decoded messages of @tandem/protocol) and hands them to the DocSession; the session and the room hand
// it meanings back (joined, refreshed, refused, durable), which it encodes in its own framing.
import type { Capability } from '../../auth/capability.js'
import type { CloseCode } from '@tandem/protocol/close-codes'
import type { HocusMessage } from '@tandem/protocol/hocuspocus'
import type { ClientMessage } from '@tandem/protocol/messages'
import type { Peer } from '../peer.js'
import type { Room } from '../room/room.js'
import type { PeerSocket, ReadOnlyNotices } from '../transport.js'
import type { Refusal } from './refusal.js'

/** A decoded client message of either protocol (the session dispatches on `type`). */
export type Meaning = ClientMessage | HocusMessage

/** How a session ended, for the codec to tell its client (or not). */
export type SessionEnd =
  /** admission refused, a message failed, no fresh token in time: the document alone ends */
  | ({ kind: 'refused' } & Refusal)
  /** the room, the expiry clock or the deny-list closed the peer (shutdown, drain, slow consumer, deleted) */
  | ({ kind: 'closed' } & Refusal)
  /** the client left the document (Hocuspocus Close) */
  | { kind: 'detached' }

export interface SessionCodec {
  /** for logs */
  readonly protocol: 'y-websocket' | 'hocuspocus'
  /** what the room tells this document's peer beyond sync and awareness */
  readonly readOnlyNotices: ReadOnlyNotices
  /** the metrics label of a message */
  label(m: Meaning): string
  /** The socket the room sends this join's frames to; `owner` hears when the room closes it. */
  attach(owner: SocketOwner): PeerSocket
  /** The join's socket is done with (the peer left its room). */
  detach(socket: PeerSocket): void
  /** The document joined its room with `cap`. */
  joined(cap: Capability): void
  /** An in-band token replaced the capability. */
  refreshed(cap: Capability): void
  /** An in-band token was refused (`reason`); the current capability stays. */
  refreshRefused(err: unknown, reason: string): void
  /** Admission failed with `err` (logs, metrics, the client address's failed authentications). */
  admissionRefused(err: unknown): void
  /** The session ended (never called for a close of the socket itself). */
  ended(end: SessionEnd): void
  /**
   * Present when the protocol can ask its client for a fresh token (Hocuspocus): the session asks
   * before the token expires, and at expiry waits `waitSec` for one instead of ending.
   */
  readonly renewal?: { ask(): void; readonly waitSec: number }
  /** Present when the protocol acknowledges updates (Hocuspocus SyncStatus): `saved` once durable. */
  synced?(saved: boolean): void
  /** A message the room does not take (Hocuspocus Stateless): relayed by the codec. */
  stateless?(room: Room, peer: Peer, payload: string): void
}

/** Who hears that the room closed a join's socket (a socket that is not the connection itself). */
export interface SocketOwner {
  peerClosed(socket: PeerSocket, code: CloseCode, reason: string): void
}
