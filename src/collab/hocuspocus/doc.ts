// One document on a Hocuspocus socket, the codec of its DocSession: what the session says goes out
// behind the document's name (Authenticated, PermissionDenied, a token request, SyncStatus once an
// update is durable); the room's sync and awareness frames reach it through a DocChannel. A refusal
// ends this document only; what concerns the socket (shutdown, drain, slow consumer) closes it whole.
import { TokenRefused, refusalKind, type Capability } from '../../auth/capability.js'
import { isAppError } from '../../infra/errors.js'
import { CLOSE } from '@tandem/protocol/close-codes'
import {
  encodeAuthenticated,
  encodeHocusPermissionDenied,
  encodeName,
  encodeStateless,
  encodeSyncStatus,
  encodeTokenRequest,
} from '@tandem/protocol/hocuspocus'
import type { Peer } from '../peer.js'
import type { Room } from '../room/room.js'
import type { Meaning, SessionCodec, SessionEnd, SocketOwner } from '../session/codec.js'
import type { SessionDeps } from '../session/session-admission.js'
import { DocSession } from '../session/doc-session.js'
import { isPrefixed, type PeerSocket } from '../transport.js'
import { DocChannel, HOCUS_READ_ONLY_NOTICES, scopeOf } from './channel.js'

export type HocusDeps = SessionDeps & {
  config: SessionDeps['config'] & {
    hocuspocusStatelessMaxBytes: number
    hocuspocusReauthSec: number
  }
}

/** What a document needs of its socket. */
export interface SocketSide {
  readonly base: PeerSocket
  /** the client's address, for the logs */
  readonly ip: string
  /** closes the whole socket (shutdown, drain, slow consumer) */
  closeSocket(code: number, reason: string): void
  /** a document of this socket was admitted (the unauthenticated bounds no longer apply) */
  admitted(): void
  /** a refused token, charged to the client's address like a refused upgrade */
  authFailed(): void
  /** this document is gone from the socket */
  removed(name: string): void
}

/** Codes that concern the socket, not one document: every document on it goes. */
const SOCKET_CODES = new Set<number>([CLOSE.goingAway, CLOSE.internalError, CLOSE.serviceRestart, CLOSE.tryAgainLater])

const LABELS: Record<Meaning['type'], string> = {
  'sync-step1': 'hocuspocus-sync-step1',
  'sync-step2': 'hocuspocus-sync-step2',
  'sync-update': 'hocuspocus-sync-update',
  awareness: 'hocuspocus-awareness',
  'query-awareness': 'hocuspocus-query-awareness',
  auth: 'hocuspocus-auth',
  'auth-refresh': 'hocuspocus-auth',
  stateless: 'hocuspocus-stateless',
  close: 'hocuspocus-close',
}

export class HocusDoc implements SessionCodec {
  readonly protocol = 'hocuspocus'
  readonly readOnlyNotices = HOCUS_READ_ONLY_NOTICES
  readonly prefix: Uint8Array
  readonly session: DocSession
  /** Hocuspocus can ask for a fresh token: before expiry, and at expiry instead of ending */
  readonly renewal: { ask(): void; readonly waitSec: number }

  constructor(
    readonly name: string,
    org: string,
    doc: string,
    private readonly s: SocketSide,
    private readonly d: HocusDeps,
  ) {
    this.prefix = encodeName(name)
    this.session = new DocSession(this, d, org, doc)
    this.renewal = {
      ask: () => this.s.base.send(encodeTokenRequest(this.prefix)),
      waitSec: d.config.hocuspocusReauthSec,
    }
  }

  label(m: Meaning): string {
    return LABELS[m.type]
  }

  /** Each join gets its own channel: a re-admitted document's old one stays closed. */
  attach(owner: SocketOwner): PeerSocket {
    return new DocChannel(this.s.base, this.name, this.prefix, owner)
  }

  detach(socket: PeerSocket): void {
    ;(socket as DocChannel).closed = true
  }

  joined(cap: Capability): void {
    this.s.base.send(encodeAuthenticated(this.prefix, scopeOf(cap)))
    this.s.admitted()
  }

  refreshed(cap: Capability): void {
    this.s.base.send(encodeAuthenticated(this.prefix, scopeOf(cap)))
  }

  refreshRefused(err: unknown, reason: string): void {
    this.admissionRefused(err)
    this.s.base.send(encodeHocusPermissionDenied(this.prefix, `token refresh refused: ${reason}`))
  }

  admissionRefused(err: unknown): void {
    if (err instanceof TokenRefused) {
      this.d.metrics.authRefusals.inc({ where: 'hocuspocus', reason: refusalKind(err) })
      this.d.log.info(
        { ip: this.s.ip, protocol: 'hocuspocus', doc: this.name, reason: err.reason },
        'document refused: token',
      )
      this.s.authFailed()
    } else if (!isAppError(err)) this.d.log.error({ err, doc: this.name }, 'hocuspocus admission failed')
  }

  ended(end: SessionEnd): void {
    if (end.kind === 'detached') return this.s.removed(this.name)
    if (end.kind === 'closed' && SOCKET_CODES.has(end.code)) return this.s.closeSocket(end.code, end.reason)
    this.d.log.debug({ ip: this.s.ip, protocol: 'hocuspocus', doc: this.name, reason: end.reason }, 'document refused')
    this.s.base.send(encodeHocusPermissionDenied(this.prefix, end.reason))
    this.s.removed(this.name)
  }

  synced(saved: boolean): void {
    this.s.base.send(encodeSyncStatus(this.prefix, saved))
  }

  /** Relayed as it came to the document's other Hocuspocus peers (y-websocket has no such message). */
  stateless(room: Room, peer: Peer, payload: string): void {
    if (!peer.canWrite) {
      this.s.base.send(
        encodeHocusPermissionDenied(this.prefix, 'read-only: stateless messages need a read-write token'),
      )
      return
    }
    const max = this.d.config.hocuspocusStatelessMaxBytes
    if (Buffer.byteLength(payload) > max) {
      this.s.base.send(encodeHocusPermissionDenied(this.prefix, `stateless message over ${max} bytes`))
      return
    }
    // behind each receiver's own name: with sessionAwareness, one document has several
    const frames = new Map<string, Uint8Array>()
    for (const other of room.peers) {
      if (other === peer || other.closed || !isPrefixed(other.socket)) continue
      const { name, prefix, base } = other.socket
      let frame = frames.get(name)
      if (!frame) frames.set(name, (frame = encodeStateless(prefix, payload)))
      base.send(frame)
    }
  }
}
