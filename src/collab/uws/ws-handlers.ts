// WebSocket side of the collab listener on uWS: every upgrade happens inside uWS's upgrade handler,
// after the checks that need no waiting (../listener/sockets.ts decides them, the same for both
// transports). uWS frees the request when the handler returns and the message buffer when its
// callback does, so both are copied first. Native pub/sub carries room broadcasts.
import type uWS from 'uWebSockets.js'
import type { ListenerContext } from '../listener/deps.js'
import { socketLifecycle, type SocketData } from '../listener/sockets.js'
import { Reply, headerLines, peerOf } from './http.js'
import { UwsSocket, type UwsTransport } from './peer-socket.js'

export type UwsSocketData = SocketData<UwsSocket>

export function webSocketBehavior(
  d: ListenerContext,
  transport: UwsTransport,
  sockets: Set<UwsSocket>,
): uWS.WebSocketBehavior<UwsSocketData> {
  const { config, metrics } = d
  const life = socketLifecycle<UwsSocket>(d, sockets)

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
      const ip = d.throttle.clientIp(peerOf(res), headerLines(req))
      const out = life.upgrade({
        url,
        query: new URLSearchParams(req.getQuery() ?? ''),
        protocols: req.getHeader('sec-websocket-protocol'),
        origin,
        ip,
      })
      if (!out.upgrade) {
        new Reply(res).json(out.status, out.body, out.headers)
        return
      }
      res.upgrade(
        out.data,
        req.getHeader('sec-websocket-key'),
        out.protocol,
        req.getHeader('sec-websocket-extensions'),
        context,
      )
    },

    open(ws) {
      const refused = life.open(ws.getUserData(), () => new UwsSocket(ws, metrics, transport))
      if (refused) ws.end(refused.code, refused.reason)
    },

    message(ws, message) {
      // The ArrayBuffer is only valid during this call; handlers may keep slices past an await.
      // A message over the limit is refused by its length, not copied.
      const bytes =
        message.byteLength > config.maxMessageBytes ? new Uint8Array(message) : new Uint8Array(message.slice(0))
      life.message(ws.getUserData(), bytes)
    },

    close(ws, code) {
      life.closed(ws.getUserData(), code)
    },

    drain(ws) {
      ws.getUserData().socket?.drained()
    },
  }
}
