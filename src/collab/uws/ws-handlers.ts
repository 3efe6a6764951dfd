// WebSocket side of the collab listener: every upgrade happens inside uWS's upgrade handler, after
// the checks that need no waiting (origin, path, rate limits, the token when its key is known, room
// full for a loaded room). A room that still has to load (a document's first visitor), or a token
// whose key has to be re-read, is waited for after the open, its first frames held meanwhile
// (PendingConnection). An upgrade after an await would go through cork(), which in this uWS build
// closes about one fresh socket in 1,000 without a close frame (docs/perf/versus-peers.md, "1006").
// Native pub/sub carries room broadcasts.
import type uWS from 'uWebSockets.js'
import { TokenRefused, refusalKind, type Capability } from '../../auth/capability.js'
import { AppError, answerFor, collabErrorReply, isAppError, publicMessage } from '../../infra/errors.js'
import { CLOSE } from '../../protocol/close-codes.js'
import { Connection } from '../connection.js'
import { HocusSession } from '../hocuspocus/session.js'
import { PendingConnection, type Admitted, type Refused, type Session } from '../pending-connection.js'
import { Peer } from '../peer.js'
import type { RoomHold } from '../registry.js'
import type { ListenerContext } from './deps.js'
import { Reply } from './http.js'
import { UwsSocket, type UwsTransport } from './peer-socket.js'
import { upgradeAuthorizer, type Decided } from './upgrade-auth.js'

/** What the upgrade decided, for open: join a held room, wait for one, speak Hocuspocus, or close at once. */
type Start = { hold: RoomHold; cap: Capability } | { admit: () => Promise<Admitted | Refused> } | { hocuspocus: string } | Refused

export interface SocketData {
  start: Start
  /** from open on, unless the socket was accepted only to be closed */
  socket: UwsSocket | null
  session: Session | null
  /** which protocol the socket speaks, from open on (metrics) */
  protocol: 'y-websocket' | 'hocuspocus'
}

/** Close code and reason for a failure after the open, as the HTTP refusal would have said it. */
function refusedWith(err: unknown): Refused {
  const code = answerFor(err).close
  // As terse as the 401 body for a token ("invalid", "expired"); a close reason is at most 123 bytes.
  const reason = err instanceof TokenRefused ? `token ${err.message}` : publicMessage(err).slice(0, 120)
  return { code, reason }
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

  /** The room for a socket already open, held for it; or why it cannot have it. Never rejects. */
  const admit = async (decided: Promise<Decided>, ip: string, url: string): Promise<Admitted | Refused> => {
    try {
      const decision = await decided
      if (decision.kind === 'close') return decision
      const { org, doc, cap } = decision
      const hold = await d.registry.acquire({ org, doc, branch: cap.branch }, cap.sub)
      // A delete that landed while the room loaded: the upgrade's check came before it.
      try {
        d.deleted.check(org, doc)
      } catch (err) {
        hold.release()
        throw err
      }
      return { hold, cap }
    } catch (err) {
      note(err, ip, url)
      return refusedWith(err)
    }
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
      let held: RoomHold | null = null
      let start: Start
      let protocol: string
      try {
        const refused = throttle.admitUpgrade(ip)
        if (refused) throw refused
        const decision = authorize({ url, query: new URLSearchParams(req.getQuery() ?? ''), protocols: req.getHeader('sec-websocket-protocol'), origin, ip })
        protocol = decision.protocol
        if (decision.kind === 'close') start = decision
        else if (decision.kind === 'hocuspocus') start = { hocuspocus: ip }
        else if (decision.kind === 'verify') start = { admit: () => admit(decision.decided, ip, url) }
        else {
          held = d.registry.acquireLoaded({ org: decision.org, doc: decision.doc, branch: decision.cap.branch })
          if (held && held.room.peers.size >= config.maxConnectionsPerRoom) throw new AppError('room_full', 'room is full')
          start = held ? { hold: held, cap: decision.cap } : { admit: () => admit(Promise.resolve(decision), ip, url) }
        }
      } catch (err) {
        held?.release()
        note(err, ip, url, origin)
        const { status, body, headers } = collabErrorReply(err)
        metrics.httpRequests.inc({ listener: 'collab', route: 'upgrade', method: 'GET', status: String(status) })
        new Reply(res).json(status, body, headers)
        return
      }
      const data: SocketData = { start, socket: null, session: null, protocol: 'y-websocket' }
      res.upgrade(data, req.getHeader('sec-websocket-key'), protocol, req.getHeader('sec-websocket-extensions'), context)
    },

    open(ws) {
      const data = ws.getUserData()
      const start = data.start
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
        data.session = new HocusSession(socket, d, ip, () => throttle.authFailed(ip))
      } else if ('hold' in start) {
        // The room join (and its first sends) runs on the next turn, outside the upgrade's cork;
        // a message arriving first opens the connection itself.
        const conn = new Connection(start.hold, new Peer(socket, start.cap), d)
        data.session = conn
        setImmediate(() => conn.open())
      } else {
        // Loaded (or the token verified) only now that the socket is open: nothing is held for a
        // socket that never opened.
        data.session = new PendingConnection(socket, start.admit(), d)
      }
    },

    message(ws, message) {
      metrics.bytesIn.inc(message.byteLength)
      const data = ws.getUserData()
      if (message.byteLength > config.maxMessageBytes) {
        data.socket?.close(CLOSE.tooLarge, `message over ${config.maxMessageBytes} bytes`)
        return
      }
      const overLimit = throttle.chargeFrame(ws, message.byteLength)
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
