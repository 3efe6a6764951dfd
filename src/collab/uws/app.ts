// The collab listener: the only place (with its siblings in this folder) that imports
// uWebSockets.js. WebSocket rooms at /{org}/{doc_id}, collab REST, health, metrics and JWKS.
import uWS from 'uWebSockets.js'
import type { CloseCode } from '../../protocol/close-codes.js'
import type { Transport } from '../transport.js'
import { corsHeaders, handleRest, preflight } from './rest-routes.js'
import { UwsTransport } from './peer-socket.js'
import { webSocketBehavior, type SocketData } from './ws-handlers.js'
import type { CollabListenerDeps, ListenerContext } from './deps.js'
import { ExpiryClock } from '../expiry-clock.js'
import { CollabThrottle } from './throttle.js'
import { Reply, copyRequest } from './http.js'
import { listenExclusive } from './listen.js'
import { SweptSockets } from './swept-sockets.js'
import { bindWithRetry } from '../../infra/listen-retry.js'
import { collabErrorReply } from '../../infra/errors.js'
import { PUBLIC_PATHS, publicEndpoints } from '../../infra/public-endpoints.js'



/**
 * The collab listener's app before it listens: its transport (which the room registry needs) and
 * its sockets exist first, so the registry is built on them and the routes on the registry.
 */
export interface CollabApp {
  transport: Transport
  /** Mounts the routes and binds the port. */
  listen(d: CollabListenerDeps): Promise<CollabListener>
  /** Closes every remaining socket (after the registry's shutdown flushed and closed its rooms). */
  closeAll(code: CloseCode, reason: string): void
}

interface CollabListener {
  port: number
  /** Stops accepting connections and answers /readyz 503; sockets are closed by the registry's shutdown. */
  stopListening(): void
}

export function createCollabApp(): CollabApp {
  const app = uWS.App()
  const transport = new UwsTransport(app)
  const sockets = new SweptSockets<uWS.WebSocket<SocketData>>()
  return {
    transport,
    listen: (d) => listen(app, transport, sockets, d),
    closeAll(code, reason) {
      for (const ws of [...sockets]) ws.end(code, reason)
    },
  }
}

async function listen(
  app: uWS.TemplatedApp,
  transport: UwsTransport,
  sockets: SweptSockets<uWS.WebSocket<SocketData>>,
  deps: CollabListenerDeps,
): Promise<CollabListener> {
  let ready = true
  // The listener's own parts: built once here, so its WebSocket and REST paths share them.
  const d: ListenerContext = { ...deps, throttle: new CollabThrottle(deps.config, deps.metrics), expiry: new ExpiryClock(deps.now) }

  app.ws<SocketData>('/*', webSocketBehavior(d, transport, sockets))

  const endpoints = publicEndpoints(d)
  for (const path of PUBLIC_PATHS) {
    app.get(path, (res) => {
      const reply = new Reply(res)
      endpoints[path]().then(
        (a) => reply.send(a.status, a.body, a.contentType, a.headers),
        (err: unknown) => {
          d.log.error({ err, path }, 'public endpoint failed')
          const { status, body } = collabErrorReply(err)
          reply.json(status, body)
        },
      )
    })
  }
  app.get('/readyz', (res) => {
    const status = !ready
      ? 'shutting down'
      : !d.storageHealth.ok
        ? 'storage unavailable'
        : d.clusterReady && !d.clusterReady()
          ? 'cluster bus unavailable'
          : 'ready'
    new Reply(res).json(status === 'ready' ? 200 : 503, { status })
  })
  app.options('/:name/v1/:org/:doc', (res, req) => preflight(res, req, d.config))
  app.options('/:name/v1/:org/:doc/:id', (res, req) => preflight(res, req, d.config))
  app.options('/:name/v1/:org/:doc/:id/:action', (res, req) => preflight(res, req, d.config))
  app.any('/:name/v1/:org/:doc', (res, req) => handleRest(res, req, d))
  app.any('/:name/v1/:org/:doc/:id', (res, req) => handleRest(res, req, d))
  app.any('/:name/v1/:org/:doc/:id/:action', (res, req) => handleRest(res, req, d))
  app.any('/*', (res, req) => {
    const copied = copyRequest(req)
    new Reply(res, () => corsHeaders(copied.headers.get('origin'), d.config)).json(404, { error: 'no such route', code: 'not_found' })
  })

  // Slow readers: uWS's own limit (4x ours) is the hard stop for a socket that fills up between two sweeps.
  sockets.sweep((ws) => {
    if (ws.getBufferedAmount() > d.config.maxBackpressureBytes) {
      d.metrics.closes.inc({ code: '1013' })
      ws.end(1013, 'backpressure limit reached')
    }
  })

  const listenSocket = await bindWithRetry(() => listenExclusive(app, d.config.host, d.config.collabPort), {
    retryMs: d.config.listenRetrySec * 1000,
    log: d.log,
    what: `collab ${d.config.host}:${d.config.collabPort}`,
  })
  const port = uWS.us_socket_local_port(listenSocket as unknown as uWS.us_socket)

  return {
    port,
    stopListening() {
      if (!ready) return
      ready = false
      sockets.stop()
      uWS.us_listen_socket_close(listenSocket)
    },
  }
}
