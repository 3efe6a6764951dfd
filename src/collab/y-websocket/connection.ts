// One y-websocket socket (`/{org}/{doc_id}`), the codec of its one DocSession: each frame is
// decoded strictly into a meaning for the session (a malformed one closes the socket 4400); what
// the session says goes back as y-websocket frames, and an ending as the socket's close frame.
// The socket is the room's peer socket itself: the room's closes (expiry, revocation, shutdown,
// slow consumer, deletion) close it directly, and its close ends the session.
import type { Capability } from '../../auth/capability.js'
import { TokenRefused, refusalKind } from '../../auth/capability.js'
import type { Metrics } from '../../infra/metrics.js'
import { CLOSE } from '@tandem/protocol/close-codes'
import {
  ProtocolError,
  decodeMessage,
  encodeAuthGranted,
  encodePermissionDenied,
  type ClientMessage,
} from '@tandem/protocol/messages'
import type { SessionCodec, SessionEnd } from '../session/codec.js'
import type { SessionDeps } from '../session/session-admission.js'
import { DocSession } from '../session/doc-session.js'
import { cut, refusalOf } from '../session/refusal.js'
import type { PeerSocket, ReadOnlyNotices } from '../transport.js'
import { Y_WEBSOCKET_READ_ONLY_NOTICES } from './read-only-notices.js'

/** Logs and counts a refused admission (the upgrade's own notes: the client address, the path). */
export type NoteRefusal = (err: unknown, ip: string, url: string) => void

export class YwsConnection implements SessionCodec {
  readonly session: DocSession
  private readonly metrics: Metrics

  constructor(
    private readonly socket: PeerSocket,
    d: SessionDeps,
    org: string,
    doc: string,
    /** the client's address and the upgrade's path, for the refusal's notes */
    private readonly ip: string,
    private readonly url: string,
    private readonly note: NoteRefusal,
  ) {
    this.metrics = d.metrics
    this.session = new DocSession(this, d, org, doc)
  }

  /** A frame from the socket. */
  message(bytes: Uint8Array): void {
    let m: ClientMessage
    try {
      m = decodeMessage(bytes)
    } catch (err) {
      const r =
        err instanceof ProtocolError
          ? { code: CLOSE.malformed, reason: cut(`malformed message: ${err.message}`) }
          : refusalOf(err)
      this.socket.close(r.code, r.reason)
      return
    }
    this.session.message(m, bytes.length)
  }

  /** The socket closed (either side). */
  close(): void {
    this.session.end()
  }

  // ---- SessionCodec (getters: nothing per socket for what every socket shares) -----------------

  get protocol(): 'y-websocket' {
    return 'y-websocket'
  }

  get readOnlyNotices(): ReadOnlyNotices {
    return Y_WEBSOCKET_READ_ONLY_NOTICES
  }

  label(m: ClientMessage): string {
    return m.type
  }

  /** The room sends to the socket itself. */
  attach(): PeerSocket {
    return this.socket
  }

  /** Nothing to let go: the socket is the connection's, closed by whoever ends it. */
  detach(): void {}

  /** y-websocket says nothing on a join: the room's sync step 1 opens the exchange. */
  joined(): void {}

  refreshed(cap: Capability): void {
    this.socket.send(encodeAuthGranted(cap.acc))
  }

  refreshRefused(err: unknown, reason: string): void {
    if (err instanceof TokenRefused) this.metrics.authRefusals.inc({ where: 'refresh', reason: refusalKind(err) })
    this.socket.send(encodePermissionDenied(`token refresh refused: ${reason}`))
  }

  admissionRefused(err: unknown): void {
    this.note(err, this.ip, this.url)
  }

  ended(end: SessionEnd): void {
    if (end.kind !== 'detached') this.socket.close(end.code, end.reason)
  }
}
