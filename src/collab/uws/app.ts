// The collab listener on uWebSockets.js: the only place (with its siblings in this folder) that
// uses it. WebSocket rooms at /{org}/{doc_id} and the Hocuspocus root URL, collab REST, health,
// metrics and JWKS; the routes' logic is ../listener/, shared with the `ws` transport. The module is
// handed in (../listener/choose.ts loads it only when this transport is chosen).
import type uWS from 'uWebSockets.js'
import type { CollabApp, CollabListener, CollabListenerDeps, ListenerContext } from '../listener/deps.js'
import { ExpiryClock } from '../expiry-clock.js'
import { corsHeaders, notFound, preflightHeaders, serveRest } from '../listener/rest-dispatch.js'
import { listenerRoutes } from '../listener/routes.js'
import { closeIfSlow } from '../listener/sockets.js'
import { SweptSockets } from '../listener/swept-sockets.js'
import { CollabThrottle } from '../listener/throttle.js'
import { bindWithRetry } from '../../infra/listen-retry.js'
import { Reply, copyRequest, headerLines, peerOf, readPieces } from './http.js'
import { listenExclusive } from './listen.js'
import { UwsSocket, UwsTransport } from './peer-socket.js'
import { webSocketBehavior, type UwsSocketData } from './ws-handlers.js'

export type UwsModule = typeof uWS

export function createUwsApp(native: UwsModule): CollabApp {
  const app = native.App()
  const transport = new UwsTransport(app)
  const sockets = new SweptSockets<UwsSocket>()
  return {
    kind: 'uws',
    transport,
    listen: (d) => listen(native, app, transport, sockets, d),
    closeAll(code, reason) {
      for (const s of [...sockets]) s.close(code, reason)
    },
  }
}

async function listen(
  native: UwsModule,
  app: uWS.TemplatedApp,
  transport: UwsTransport,
  sockets: SweptSockets<UwsSocket>,
  deps: CollabListenerDeps,
): Promise<CollabListener> {
  let ready = true
  // The listener's own parts: built once here, so its WebSocket and REST paths share them.
  const d: ListenerContext = {
    ...deps,
    throttle: new CollabThrottle(deps.config, deps.metrics),
    expiry: new ExpiryClock(deps.now),
  }
  const routes = listenerRoutes(d, () => ready)
  const cors = (req: uWS.HttpRequest) => {
    const origin = req.getHeader('origin') || undefined
    return () => corsHeaders(origin, d.config)
  }

  app.ws<UwsSocketData>('/*', webSocketBehavior(d, transport, sockets))

  for (const path of routes.publicPaths) app.get(path, (res) => routes.servePublic(path, new Reply(res)))
  app.get('/readyz', (res) => routes.readyz(new Reply(res)))
  const preflight = (res: uWS.HttpResponse, req: uWS.HttpRequest) =>
    new Reply(res).send(204, '', 'text/plain', preflightHeaders(req.getHeader('origin') || undefined, d.config))
  const rest = (res: uWS.HttpResponse, req: uWS.HttpRequest) => {
    const reply = new Reply(res, cors(req))
    serveRest(
      {
        ...copyRequest(req),
        ip: d.throttle.clientIp(peerOf(res), headerLines(req)),
        name: req.getParameter(0) ?? '',
        rawOrg: req.getParameter(1) ?? '',
        rawDoc: req.getParameter(2) ?? '',
        rawId: req.getParameter(3) || null, // `/{name}/v1/{org}/{doc}/{id}`
        action: req.getParameter(4) || null, // `/{name}/v1/{org}/{doc}/{id}/{action}`
        readPieces: (limit, declared, onPiece) => readPieces(res, reply, limit, declared, onPiece),
      },
      reply,
      d,
    )
  }
  for (const pattern of ['/:name/v1/:org/:doc', '/:name/v1/:org/:doc/:id', '/:name/v1/:org/:doc/:id/:action']) {
    app.options(pattern, preflight)
    app.any(pattern, rest)
  }
  app.any('/*', (res, req) => notFound(new Reply(res, cors(req))))

  // Slow readers: uWS's own limit (4x ours) is the hard stop for a socket that fills up between two sweeps.
  sockets.sweep((s) => closeIfSlow(s, d))

  const listenSocket = await bindWithRetry(() => listenExclusive(native, app, d.config.host, d.config.collabPort), {
    retryMs: d.config.listenRetrySec * 1000,
    log: d.log,
    what: `collab ${d.config.host}:${d.config.collabPort}`,
  })
  const port = native.us_socket_local_port(listenSocket as unknown as uWS.us_socket)

  return {
    port,
    stopListening() {
      if (!ready) return
      ready = false
      sockets.stop()
      native.us_listen_socket_close(listenSocket)
    },
  }
}
