// The WebSocket side of the collab listener, whatever carries it: what an upgrade decides before the
// 101 (origin, path, rate limits, the token when its key is known), what a socket becomes at its open
// (a y-websocket document's DocSession, admitted at once when its room was held at the upgrade, or a
// Hocuspocus socket), and what its frames and its close do. Every check before the upgrade is
// synchronous: uWS must upgrade inside its handler (an upgrade after an await goes through cork(),
// which in this uWS build closes about one fresh socket in 1,000 without a close frame,
// docs/perf/versus-peers.md "1006"), and the `ws` transport does the same for one behaviour on both.
import { TokenRefused, refusalKind, type Capability } from '../../auth/capability.js'
import { collabErrorReply, isAppError } from '../../infra/errors.js'
import { CLOSE, type CloseCode } from '@tandem/protocol/close-codes'
import { HocusSocket } from '../hocuspocus/socket.js'
import type { RoomHold } from '../registry.js'
import type { Refusal } from '../session/refusal.js'
import type { PeerSocket } from '../transport.js'
import { YwsConnection } from '../y-websocket/connection.js'
import type { ListenerContext } from './deps.js'
import type { FrameBudget } from './throttle.js'
import { upgradeAuthorizer, type Decided, type UpgradeRequest } from './upgrade-auth.js'

/** The upgrade's y-websocket document, its client address and path. */
interface YwsStart {
  org: string
  doc: string
  ip: string
  url: string
  /** the room held and the capability, or the admission still to come */
  admit: { hold: RoomHold; cap: Capability } | Promise<Decided>
}

/** What the upgrade decided, for open: a y-websocket document, a Hocuspocus socket, or close at once. */
type Start = YwsStart | { hocuspocus: string } | Refusal

/** What the socket handlers drive: a y-websocket connection or a Hocuspocus socket. */
interface SocketSession {
  message(bytes: Uint8Array): void
  /** the socket closed (by either side) */
  close(): void
}

/** A transport's socket as the listener drives it: a PeerSocket told when it closed. */
export interface ListenerSocket extends PeerSocket {
  /** closed by either side */
  readonly closed: boolean
  markClosed(): void
  /** `fn` runs once when the server closes the socket, before the peer has answered */
  whenClosing(fn: () => void): void
}

/** One socket's state, from its upgrade on (uWS keeps it as the socket's user data). */
export interface SocketData<S extends ListenerSocket = ListenerSocket> {
  /** until open (then dropped: the session holds what it needs) */
  start: Start | null
  /** from open on, unless the socket was accepted only to be closed */
  socket: S | null
  session: SocketSession | null
  /** which protocol the socket speaks, from open on (metrics) */
  protocol: 'y-websocket' | 'hocuspocus'
  /** its frame and byte allowances (throttle.ts), made on its first frame */
  budget: FrameBudget | null
}

/** An upgrade to make (with the subprotocol to answer), or the HTTP refusal to answer instead. */
type UpgradeOutcome<S extends ListenerSocket> =
  | { upgrade: true; data: SocketData<S>; protocol: string }
  | { upgrade: false; status: number; body: unknown; headers: Record<string, string> }

export interface SocketLifecycle<S extends ListenerSocket> {
  upgrade(req: UpgradeRequest): UpgradeOutcome<S>
  /** The socket is open: `wrap` makes its PeerSocket; a refusal decided at the upgrade is returned to close it with. */
  open(data: SocketData<S>, wrap: () => S): { code: CloseCode; reason: string } | null
  /** One whole message; `bytes` must stay valid after the call (handlers keep slices past an await). */
  message(data: SocketData<S>, bytes: Uint8Array): void
  closed(data: SocketData<S>, code: number): void
}

export function socketLifecycle<S extends ListenerSocket>(d: ListenerContext, sockets: Set<S>): SocketLifecycle<S> {
  const { config, metrics, throttle } = d
  const authorize = upgradeAuthorizer(d)

  /** Logs and counts a refusal (before or after the open); a bad token charges the client. */
  const note = (err: unknown, ip: string, url: string, origin = ''): void => {
    if (err instanceof TokenRefused) {
      metrics.authRefusals.inc({ where: 'upgrade', reason: refusalKind(err) })
      d.log.info({ ip, path: url, reason: err.reason }, 'upgrade refused: token')
    } else if (!isAppError(err)) d.log.error({ err, path: url }, 'upgrade failed')
    else if (err.status === 403)
      d.log.info(
        { ip, path: url, protocol: url === '/' ? 'hocuspocus' : 'y-websocket', origin, reason: err.message },
        'upgrade refused',
      )
    else if (err.status >= 500)
      d.log.warn({ err, path: url }, 'socket closed before joining: the document could not be loaded')
    if (isAppError(err) && err.status === 401) throttle.authFailed(ip)
  }

  return {
    upgrade(req) {
      const { url, ip } = req
      let start: Start
      let protocol: string
      try {
        const refused = throttle.admitUpgrade(ip)
        if (refused) throw refused
        const decision = authorize(req)
        protocol = decision.protocol
        if (decision.kind === 'close') start = decision
        else if (decision.kind === 'hocuspocus') start = { hocuspocus: ip }
        else if (decision.kind === 'verify')
          start = { org: decision.org, doc: decision.doc, ip, url, admit: decision.decided }
        else {
          // A loaded room is held at once (no await before the upgrade); a full one is refused by the session.
          const { org, doc, cap } = decision
          const held = d.registry.acquireLoaded({ org, doc, branch: cap.branch })
          start = { org, doc, ip, url, admit: held ? { hold: held, cap } : Promise.resolve(decision) }
        }
      } catch (err) {
        note(err, ip, url, req.origin)
        const { status, body, headers } = collabErrorReply(err)
        metrics.httpRequests.inc({ listener: 'collab', route: 'upgrade', method: 'GET', status: String(status) })
        return { upgrade: false, status, body, headers: headers ?? {} }
      }
      return {
        upgrade: true,
        protocol,
        data: { start, socket: null, session: null, protocol: 'y-websocket', budget: null },
      }
    },

    open(data, wrap) {
      const start = data.start!
      data.start = null
      if ('code' in start) return start
      const socket = wrap()
      data.socket = socket
      sockets.add(socket)
      socket.whenClosing(() => endSession(data))
      const protocol = 'hocuspocus' in start ? 'hocuspocus' : 'y-websocket'
      data.protocol = protocol
      metrics.connections.inc({ protocol })
      if ('hocuspocus' in start) {
        const ip = start.hocuspocus
        data.session = new HocusSocket(socket, d, ip, () => throttle.authFailed(ip))
        return null
      }
      const conn = new YwsConnection(socket, d, start.org, start.doc, start.ip, start.url, note)
      data.session = conn
      // Loaded (or the token verified) only now that the socket is open: nothing is held for a
      // socket that never opened.
      if ('hold' in start.admit) conn.session.admitHeld(start.admit.hold, start.admit.cap)
      else conn.session.admit(start.admit)
      return null
    },

    message(data, bytes) {
      // Nothing is processed once the socket is closing: uWS delivers no frame after end(), ws
      // those it had already read while the close handshake runs.
      if (data.socket?.closed) return
      metrics.bytesIn.inc(bytes.byteLength)
      if (bytes.byteLength > config.maxMessageBytes) {
        data.socket?.close(CLOSE.tooLarge, `message over ${config.maxMessageBytes} bytes`)
        return
      }
      const overLimit = throttle.chargeFrame(data, bytes.byteLength)
      if (overLimit) {
        data.socket?.close(CLOSE.policyViolation, overLimit)
        return
      }
      data.session?.message(bytes)
    },

    closed(data, code) {
      metrics.closes.inc({ code: String(code) })
      const { socket, protocol } = data
      if (!socket) return
      sockets.delete(socket)
      metrics.connections.dec({ protocol })
      socket.markClosed()
      endSession(data)
    },
  }
}

/** The socket's session ends once: when the server closes the socket, or when the peer does. */
function endSession(data: SocketData): void {
  const session = data.session
  data.session = null
  session?.close()
}

/** The sweep's check for slow readers (rooms check after each broadcast; this catches awareness-only traffic). */
export function closeIfSlow(s: ListenerSocket, d: Pick<ListenerContext, 'config' | 'metrics'>): boolean {
  if (s.bufferedAmount() <= d.config.maxBackpressureBytes) return false
  d.metrics.closes.inc({ code: String(CLOSE.tryAgainLater) })
  s.close(CLOSE.tryAgainLater, 'backpressure limit reached')
  return true
}
