// A socket accepted before its room was there: a document's first visitor (the room loads after the
// upgrade) or a token whose signing key had to be re-read. The socket library upgrades at once (an
// upgrade after an await meets the uWS cork() bug, docs/perf/versus-peers.md, "1006"); its first frames (a
// y-websocket provider sends sync step 1 and awareness right after open) are held here, in order and
// bounded, and handed to a Connection once the room is loaded. A room that cannot be had closes the
// socket with a code and a reason, and nothing is left held or joined.
import type { Capability } from '../auth/capability.js'
import { CLOSE, type CloseCode } from '../protocol/close-codes.js'
import { Connection, type ConnectionDeps } from './connection.js'
import { Peer } from './peer.js'
import type { RoomHold } from './registry.js'
import type { PeerSocket } from './transport.js'

/** What the socket adapter drives: a joined Connection, or one still waiting for its room. */
export interface Session {
  message(bytes: Uint8Array): void
  /** the socket closed (by either side) */
  close(): void
}

/** The room (held by the caller for this socket until it joins) and the verified capability. */
export interface Admitted {
  hold: RoomHold
  cap: Capability
}

/** Why the socket cannot join: it is closed with this. */
export interface Refused {
  code: CloseCode
  reason: string
}

export type PendingDeps = ConnectionDeps & {
  config: ConnectionDeps['config'] & { maxConnectionsPerRoom: number; maxMessageBytes: number }
}

/** What a held frame costs besides its bytes (array slot, typed-array header), so tiny frames count. */
const FRAME_OVERHEAD_BYTES = 64

export class PendingConnection implements Session {
  private held: Uint8Array[] | null = []
  private heldBytes = 0
  private conn: Connection | null = null
  private closed = false

  /** `admission` never rejects: the adapter turns every failure into a Refused (logged there). */
  constructor(
    private readonly socket: PeerSocket,
    admission: Promise<Admitted | Refused>,
    private readonly d: PendingDeps,
  ) {
    void admission.then((a) => ('hold' in a ? this.admit(a) : this.refuse(a)))
  }

  message(bytes: Uint8Array): void {
    if (this.conn) return this.conn.message(bytes)
    if (this.closed || !this.held) return
    // The frame rate limits apply as on any socket; on top, what waits is bounded in memory: one
    // message up to the limit plus the small ones around it (a provider's opening is two or three).
    this.heldBytes += bytes.length + FRAME_OVERHEAD_BYTES
    if (this.heldBytes > 2 * this.d.config.maxMessageBytes) {
      this.refuse({ code: CLOSE.policyViolation, reason: 'too many messages before the document was loaded' })
      return
    }
    this.held.push(bytes)
  }

  close(): void {
    this.closed = true
    this.held = null
    this.conn?.close()
  }

  private admit({ hold, cap }: Admitted): void {
    const room = hold.room
    const full = room.peers.size >= this.d.config.maxConnectionsPerRoom
    if (this.closed || full || room.destroyed) {
      hold.release()
      if (full) this.refuse({ code: CLOSE.tryAgainLater, reason: 'room is full' })
      else if (room.destroyed) this.refuse({ code: CLOSE.goingAway, reason: 'server shutting down' })
      return
    }
    const conn = new Connection(hold, new Peer(this.socket, cap), this.d)
    this.conn = conn
    conn.open()
    const held = this.held ?? []
    this.held = null
    for (const bytes of held) conn.message(bytes)
  }

  private refuse({ code, reason }: Refused): void {
    this.held = null
    if (this.closed) return
    this.closed = true
    this.socket.close(code, reason)
  }
}
