// WebSocket side of the collab listener: every upgrade happens inside uWS's upgrade handler, after
// the checks that need no waiting (origin, path, rate limits, the token when its key is known). A
// y-websocket socket gets its DocSession at the open: with the room already held when it was
// loaded, else admitted after the open (a document's first visitor, or a token whose key has to be
// re-read), its first frames held meanwhile. An upgrade after an await would go through cork(),
// which in this uWS build closes about one fresh socket in 1,000 without a close frame
// (docs/perf/versus-peers.md, "1006"). The root URL speaks Hocuspocus. Native pub/sub carries room
// broadcasts.
import type uWS from 'uWebSockets.js'
import { TokenRefused, refusalKind, type Capability } from '../../auth/capability.js'
import { collabErrorReply, isAppError } from '../../infra/errors.js'
import { CLOSE } from '../../protocol/close-codes.js'
import { HocusSocket } from '../hocuspocus/socket.js'
import type { RoomHold } from '../registry.js'
import type { Refusal } from '../session/refusal.js'
import { YwsConnection } from '../y-websocket/connection.js'
import type { ListenerContext } from './deps.js'
import type { FrameBudget } from './throttle.js'
import { Reply } from './http.js'
import { UwsSocket, type UwsTransport } from './peer-socket.js'
import { upgradeAuthorizer, type Decided } from './upgrade-auth.js'

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

export interface SocketData {
  /** until open (then dropped: the session holds what it needs) */
  start: Start | null
  /** from open on, unless the socket was accepted only to be closed */
  socket: UwsSocket | null
  session: SocketSession | null
  /** which protocol the socket speaks, from open on (metrics) */
  protocol: 'y-websocket' | 'hocuspocus'
  /** its frame and byte allowances (throttle.ts), made on its first frame */
  budget: FrameBudget | null
}

export function webSocketBehavior(
  d: ListenerContext,
  transport: UwsTransport,
  sockets: Set<uWS.WebSocket<SocketData>>,
): uWS.WebSocketBehavior<SocketData> {
  const { config, metrics } = d
  const authorize = upgradeAuthorizer(d)
  const { throttle } = d

  /** Logs and counts a refusal (before or after the open); a bad token charges the client. */
  const note = (err: unknown, ip: string, url: string, origin = ''): void => {
    if (err instanceof TokenRefused) {
      metrics.authRefusals.inc({ where: 'upgrade', reason: refusalKind(err) })
      d.log.info({ ip, path: url, reason: err.reason }, 'upgrade refused: token')
    } else if (!isAppError(err)) d.log.error({ err, path: url }, 'upgrade failed')
    else if (err.status === 403) d.log.info({ ip, path: url, protocol: url === '/' ? 'hocuspocus' : 'y-websocket', origin, reason: err.message }, 'upgrade refused')
    else if (err.status >= 500) d.log.warn({ err, path: url }, 'socket closed before joining: the document could not be loaded')
    if (isAppError(err) && err.status === 401) throttle.authFailed(ip)
  }

  return {
    // uWS drops a frame over its own limit without a close frame (1006). It gets headroom so
    // messages up to 2x our limit are refused by us, properly, with 1009 (not more: uWS buffers
    // a fragmented message whole, outside the memory budget).
    maxPayloadLength: Math.min(config.maxMessageBytes * 2, 1024 * 1024 * 1024),
    maxBackpressure: config.maxBackpressureBytes * 4,
    closeOnBackpressureLimit: 1,
    // No permessage-deflate: peer-socket.ts passes the compress hint on every send (see HINT there).
    compression: 0, // uWS.DISABLED
    idleTimeout: config.idleTimeoutSec,
    sendPingsAutomatically: true,

    upgrade(res, req, context) {
      const url = req.getUrl()
      const origin = req.getHeader('origin')
      const ip = throttle.clientIp(res, req)
      let start: Start
      let protocol: string
      try {
        const refused = throttle.admitUpgrade(ip)
        if (refused) throw refused
        const decision = authorize({ url, query: new URLSearchParams(req.getQuery() ?? ''), protocols: req.getHeader('sec-websocket-protocol'), origin, ip })
        protocol = decision.protocol
        if (decision.kind === 'close') start = decision
        else if (decision.kind === 'hocuspocus') start = { hocuspocus: ip }
        else if (decision.kind === 'verify') start = { org: decision.org, doc: decision.doc, ip, url, admit: decision.decided }
        else {
          // A loaded room is held at once (no await before the upgrade); a full one is refused by the session.
          const { org, doc, cap } = decision
          const held = d.registry.acquireLoaded({ org, doc, branch: cap.branch })
          start = { org, doc, ip, url, admit: held ? { hold: held, cap } : Promise.resolve(decision) }
        }
      } catch (err) {
        note(err, ip, url, origin)
        const { status, body, headers } = collabErrorReply(err)
        metrics.httpRequests.inc({ listener: 'collab', route: 'upgrade', method: 'GET', status: String(status) })
        new Reply(res).json(status, body, headers)
        return
      }
      const data: SocketData = { start, socket: null, session: null, protocol: 'y-websocket', budget: null }
      res.upgrade(data, req.getHeader('sec-websocket-key'), protocol, req.getHeader('sec-websocket-extensions'), context)
    },

    open(ws) {
      const data = ws.getUserData()
      const start = data.start!
      data.start = null
      if ('code' in start) {
        ws.end(start.code, start.reason)
        return
      }
      const socket = new UwsSocket(ws, metrics, transport)
      data.socket = socket
      sockets.add(ws)
      const protocol = 'hocuspocus' in start ? 'hocuspocus' : 'y-websocket'
      data.protocol = protocol
      metrics.connections.inc({ protocol })
      if ('hocuspocus' in start) {
        const ip = start.hocuspocus
        data.session = new HocusSocket(socket, d, ip, () => throttle.authFailed(ip))
        return
      }
      const conn = new YwsConnection(socket, d, start.org, start.doc, start.ip, start.url, note)
      data.session = conn
      // Loaded (or the token verified) only now that the socket is open: nothing is held for a
      // socket that never opened.
      if ('hold' in start.admit) conn.session.admitHeld(start.admit.hold, start.admit.cap)
      else conn.session.admit(start.admit)
    },

    message(ws, message) {
      metrics.bytesIn.inc(message.byteLength)
      const data = ws.getUserData()
      if (message.byteLength > config.maxMessageBytes) {
        data.socket?.close(CLOSE.tooLarge, `message over ${config.maxMessageBytes} bytes`)
        return
      }
      const overLimit = throttle.chargeFrame(data, message.byteLength)
      if (overLimit) {
        data.socket?.close(CLOSE.policyViolation, overLimit)
        return
      }
      // The ArrayBuffer is only valid during this call; handlers may keep slices past an await.
      data.session?.message(new Uint8Array(message.slice(0)))
    },

    close(ws, code) {
      metrics.closes.inc({ code: String(code) })
      const { socket, session, protocol } = ws.getUserData()
      if (!socket) return
      sockets.delete(ws)
      metrics.connections.dec({ protocol })
      socket.markClosed()
      session?.close()
    },

    drain(ws) {
      ws.getUserData().socket?.drained()
    },
  }
}
