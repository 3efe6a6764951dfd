// The collab listener on Node's own http server and the `ws` package: the transport for every Node.js
// version and platform where no uWebSockets.js binary loads. The same routes as ../uws/ (the logic is
// ../listener/): WebSocket rooms at /{org}/{doc_id} and the Hocuspocus root URL, collab REST, health,
// metrics, JWKS and /readyz. Broadcasts are plain sends over each subscriber (LoopTransport); slow
// readers, idle sockets and their pings are the listener's once-a-second sweep.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import { bindWithRetry } from '../../infra/listen-retry.js'
import { ExpiryClock } from '../expiry-clock.js'
import type { CollabApp, CollabListener, CollabListenerDeps, ListenerContext } from '../listener/deps.js'
import { corsHeaders, notFound, preflightHeaders, serveRest } from '../listener/rest-dispatch.js'
import { listenerRoutes, type PublicPath } from '../listener/routes.js'
import { closeIfSlow, socketLifecycle, type SocketData } from '../listener/sockets.js'
import { SweptSockets } from '../listener/swept-sockets.js'
import { CollabThrottle } from '../listener/throttle.js'
import { LoopTransport } from '../transport.js'
import { NodeReply, copyRequest, headerLines, peerOf, readPieces, refuseUpgrade } from './http.js'
import { WsSocket, clipReason } from './peer-socket.js'

/** `/{name}/v1/{org}/{doc}[/{id}[/{action}]]`, each segment as sent (decoded by the REST layer) */
const REST_PATH = /^\/([^/]+)\/v1\/([^/]+)\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?$/
/** how long sockets that were sent a close frame at shutdown may take to answer before they are cut */
const CLOSE_GRACE_MS = 1000

export function createWsApp(): CollabApp {
  const transport = new LoopTransport()
  const sockets = new SweptSockets<WsSocket>()
  let server: Server | null = null
  return {
    kind: 'ws',
    transport,
    async listen(d) {
      const listener = await listen(sockets, d)
      server = listener.server
      return listener
    },
    closeAll(code, reason) {
      const open = [...sockets]
      for (const s of open) s.close(code, reason)
      // Peers that never answer the close frame are cut after a grace (ws alone waits 30 s), and
      // keep-alive HTTP connections do not hold the process.
      if (open.length > 0) setTimeout(() => open.forEach((s) => s.ws.terminate()), CLOSE_GRACE_MS).unref()
      server?.closeAllConnections()
    },
  }
}

async function listen(
  sockets: SweptSockets<WsSocket>,
  deps: CollabListenerDeps,
): Promise<CollabListener & { server: Server }> {
  let ready = true
  const d: ListenerContext = {
    ...deps,
    throttle: new CollabThrottle(deps.config, deps.metrics),
    expiry: new ExpiryClock(deps.now),
  }
  const { config, metrics } = d
  const routes = listenerRoutes(d, () => ready)
  const life = socketLifecycle<WsSocket>(d, sockets)
  /** the subprotocol an upgrade answers, decided before ws completes it */
  const protocolOf = new WeakMap<IncomingMessage, string>()
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    // headroom as on uWS: messages up to 2x our limit are refused by us with our reason (1009);
    // past that ws closes with 1009 itself without reading the rest
    maxPayload: Math.min(config.maxMessageBytes * 2, 1024 * 1024 * 1024),
    handleProtocols: (_offered, req) => protocolOf.get(req) || false,
  })

  const server = createServer((req, res) => route(req, res))
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined) // a peer gone mid-handshake is not an error of ours
    const [url, query] = splitUrl(req.url)
    const out = life.upgrade({
      url,
      query,
      protocols: String(req.headers['sec-websocket-protocol'] ?? ''),
      origin: req.headers.origin ?? '',
      ip: d.throttle.clientIp(peerOf(req), headerLines(req)),
    })
    if (!out.upgrade) return refuseUpgrade(socket, out.status, out.body, out.headers)
    protocolOf.set(req, out.protocol)
    wss.handleUpgrade(req, socket, head, (ws) => opened(ws, out.data))
  })

  const opened = (ws: WebSocket, data: SocketData<WsSocket>) => {
    ws.on('error', (err) => d.log.debug({ err }, 'collab socket error'))
    ws.on('close', (code) => life.closed(data, code))
    const refused = life.open(
      data,
      () => new WsSocket(ws, metrics, config.maxBackpressureBytes * 4, performance.now.bind(performance)),
    )
    if (refused) return ws.close(refused.code, clipReason(refused.reason))
    ws.on('message', (bytes: Buffer | ArrayBuffer | Buffer[]) => {
      data.socket?.seen()
      // a Buffer of its own (ws does not reuse it): kept as it is, no copy
      const buf = Array.isArray(bytes) ? Buffer.concat(bytes) : Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes)
      life.message(data, new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength))
    })
  }

  const route = (req: IncomingMessage, res: ServerResponse) => {
    const [path, query] = splitUrl(req.url)
    const method = (req.method ?? 'GET').toUpperCase()
    const origin = req.headers.origin
    const withCors = () => corsHeaders(origin, config)
    if (method === 'GET' && routes.publicPaths.includes(path as PublicPath))
      return routes.servePublic(path as PublicPath, new NodeReply(res))
    if (method === 'GET' && path === '/readyz') return routes.readyz(new NodeReply(res))
    const m = REST_PATH.exec(path)
    if (!m) return notFound(new NodeReply(res, withCors))
    if (method === 'OPTIONS') return new NodeReply(res).send(204, '', 'text/plain', preflightHeaders(origin, config))
    serveRest(
      {
        ...copyRequest(req, query),
        ip: d.throttle.clientIp(peerOf(req), headerLines(req)),
        name: m[1]!,
        rawOrg: m[2]!,
        rawDoc: m[3]!,
        rawId: m[4] ?? null,
        action: m[5] ?? null,
        readPieces: (limit, declared, onPiece) => readPieces(req, limit, declared, onPiece),
      },
      new NodeReply(res, withCors),
      d,
    )
  }

  // Slow readers, and idle sockets: pinged once half the idle timeout passed without a frame, cut at
  // the whole (as uWS does with sendPingsAutomatically: no close frame, the peer sees 1006).
  const idleMs = config.idleTimeoutSec * 1000
  sockets.sweep((s) => {
    if (closeIfSlow(s, d)) return
    const idle = performance.now() - s.lastSeen
    if (idle >= idleMs) s.ws.terminate()
    else if (!s.pinged && idle >= idleMs / 2) {
      s.pinged = true
      s.ws.ping()
    }
  })

  const port = await bindWithRetry(() => bind(server, config.host, config.collabPort), {
    retryMs: config.listenRetrySec * 1000,
    log: d.log,
    what: `collab ${config.host}:${config.collabPort}`,
  })
  return {
    port,
    server,
    stopListening() {
      if (!ready) return
      ready = false
      sockets.stop()
      server.close()
      server.closeIdleConnections()
    },
  }
}

/** Path and query of a request target. */
function splitUrl(target = '/'): [string, URLSearchParams] {
  const q = target.indexOf('?')
  return q < 0 ? [target, new URLSearchParams()] : [target.slice(0, q), new URLSearchParams(target.slice(q + 1))]
}

/**
 * Binds the port. libuv sets SO_REUSEADDR on every TCP listen socket, port 0 included, and the
 * connections it accepts inherit it, so a restart is never kept out by the last process's
 * TIME_WAIT or FIN-WAIT-2 sockets; it never sets SO_REUSEPORT (Node 20 has no option for it), so
 * the port is exclusive: a second server on it gets EADDRINUSE (retried, then start fails).
 */
function bind(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (err: Error) => {
      server.off('listening', bound)
      reject(new Error(`collab listener could not bind ${host}:${port}: ${err.message}`))
    }
    const bound = () => {
      server.off('error', failed)
      resolve((server.address() as AddressInfo).port)
    }
    server.once('error', failed)
    server.once('listening', bound)
    server.listen({ host: host || undefined, port, exclusive: true })
  })
}
