// The life of one WebSocket in a room, independent of the socket library: decode each frame,
// dispatch it, and end this one socket (never the room) on anything malformed.
import { admitToDocument } from '../auth/admission.js'
import { TokenRefused, refusalKind, verifyToken } from '../auth/capability.js'
import type { DeletedDocs } from '../auth/deleted-docs.js'
import type { KeyRing } from '../auth/keys/ring.js'
import type { RevocationList } from '../auth/revocation.js'
import { answerFor, isAppError } from '../infra/errors.js'
import type { Logger } from '../infra/log.js'
import type { Metrics } from '../infra/metrics.js'
import { CLOSE } from '../protocol/close-codes.js'
import { ProtocolError, decodeMessage, encodeAuthGranted, encodePermissionDenied } from '../protocol/messages.js'
import type { Peer } from './peer.js'
import type { ExpiryClock } from './expiry-clock.js'
import { enforceOn } from './revocation-enforcer.js'
import type { RoomHold, RoomRegistry } from './registry.js'
import type { Room } from './room/room.js'

export interface ConnectionDeps {
  keys: KeyRing
  revocations: RevocationList
  deleted: DeletedDocs
  /** Tolerance for token `iat` ahead of our clock (seconds). */
  config: { tokenClockSkewSec: number }
  registry: RoomRegistry
  metrics: Metrics
  log: Logger
  now: () => number
  /** the listener's one clock for token expiries (one timer for every socket) */
  expiry: ExpiryClock
}

export class Connection {
  readonly room: Room

  /** `hold` keeps the room loaded until this socket joins it (or closes first). */
  constructor(
    private readonly hold: RoomHold,
    readonly peer: Peer,
    private readonly d: ConnectionDeps,
  ) {
    this.room = hold.room
  }

  private opened = false

  /** The room was acquired by the upgrade; joining turns that hold into membership. Idempotent. */
  open(): void {
    if (this.opened || this.peer.closed) return
    this.opened = true
    this.room.join(this.peer)
    this.hold.release()
    // A revocation that landed between the upgrade's check and this join.
    if (!enforceOn(this.d.revocations, this.peer, this.d.metrics)) return
    this.peer.armExpiry(this.d.expiry)
  }

  message(bytes: Uint8Array): void {
    if (this.peer.closed) return
    this.open()
    try {
      const msg = decodeMessage(bytes)
      this.d.metrics.messagesIn.inc({ type: msg.type })
      switch (msg.type) {
        case 'sync-step1':
          void this.room.answerSyncStep1(this.peer, msg.stateVector).catch((e) => this.fail(e))
          break
        case 'sync-step2':
        case 'sync-update':
          this.room.receiveUpdate(this.peer, msg.update, msg.type === 'sync-step2')
          break
        case 'awareness':
          this.room.receiveAwareness(this.peer, msg.update)
          break
        case 'query-awareness':
          this.room.sendAwarenessTo(this.peer)
          break
        case 'auth-refresh':
          void this.refresh(msg.token)
          break
      }
    } catch (err) {
      this.fail(err)
    }
  }

  close(): void {
    this.peer.closed = true
    this.peer.clearExpiry()
    if (!this.opened) {
      // Closed before it joined: give back the hold the upgrade took.
      this.opened = true
      this.hold.release()
      return
    }
    this.room.leave(this.peer)
    this.d.registry.maybeScheduleUnload(this.room)
  }

  /** In-band refresh: a fresh token for the same document replaces the current capability. */
  private async refresh(token: string): Promise<void> {
    try {
      const verified = await verifyToken(this.d.keys, token, this.d.now(), this.d.config.tokenClockSkewSec)
      if (this.peer.closed) return
      const cap = admitToDocument(this.d, verified, this.peer.cap.org, this.peer.cap.doc)
      if (cap.branch !== this.peer.cap.branch) throw new ProtocolError('token is for another branch')
      this.peer.cap = cap
      this.peer.armExpiry(this.d.expiry)
      this.peer.send(encodeAuthGranted(cap.acc))
    } catch (err) {
      if (err instanceof TokenRefused) this.d.metrics.authRefusals.inc({ where: 'refresh', reason: refusalKind(err) })
      if (this.peer.closed) return
      // A bad refresh leaves the current, still valid, capability in place.
      this.peer.send(encodePermissionDenied(`token refresh refused: ${err instanceof Error ? err.message : 'invalid'}`))
    }
  }

  private fail(err: unknown): void {
    if (this.peer.closed) return
    if (err instanceof ProtocolError) {
      this.peer.close(CLOSE.malformed, `malformed message: ${err.message}`)
    } else if (isAppError(err)) {
      this.peer.close(answerFor(err).close, err.message.slice(0, 120))
    } else {
      this.d.log.error({ err, docId: this.room.docId }, 'collab message failed')
      this.peer.close(CLOSE.internalError, 'internal error')
    }
  }
}
