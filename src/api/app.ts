// The Koa app of the API listener: request id + access log + metrics, one error mapper, the public
// endpoints (health, metrics, JWKS, OpenAPI), the web console at `/`, then every /api/v0 route with
// X-API-KEY auth.
import Router from '@koa/router'
import Koa from 'koa'
import { serveConsole } from './console/routes.js'
import { mcpRoute } from './mcp-route.js'
import { authenticate } from './middleware/auth.js'
import { clientAddress } from './middleware/client-address.js'
import { throttleAuthFailures } from './middleware/auth-throttle.js'
import { errorMapper } from './middleware/errors.js'
import { observe } from './middleware/observe.js'
import { openApiDocument } from './openapi.js'
import { mountRoute, type RouteDef } from './route.js'
import type { ApiContext } from './context.js'
import { V0_ROUTES, type RouteModule } from './v0/index.js'
import { PUBLIC_PATHS, publicEndpoints } from '../infra/public-endpoints.js'

const API_VERSION = '0.1.0'

/** Socket errors of a client that hung up or sent a broken request: not a failure of ours. */
function clientWentAway(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return (
    typeof code === 'string' &&
    (['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE'].includes(code) || code.startsWith('HPE_'))
  )
}

export function createApiApp(api: ApiContext, modules: RouteModule[] = V0_ROUTES): Koa {
  const { deps } = api
  const app = new Koa({ proxy: false })
  app.silent = true // errors are logged by the error mapper, and the few that escape it here
  app.on('error', (err: unknown, ctx?: Koa.Context) => {
    if (clientWentAway(err)) deps.log.debug({ err, reqId: ctx?.state.reqId }, 'client connection ended early')
    else deps.log.error({ err, reqId: ctx?.state.reqId }, 'response failed')
  })
  app.use(clientAddress(deps.config.trustedProxies))
  app.use(observe(deps.log, deps.metrics))
  app.use(errorMapper(deps.log))

  const routes: RouteDef[] = modules.flatMap((m) => m(api))
  // one document for both listeners: the collab REST paths name the collab listener as their server
  const openapi = openApiDocument(routes, API_VERSION, { routes: deps.restRoutes, url: deps.publicUrls().restUrl })

  const root = new Router()
  const endpoints = publicEndpoints(deps)
  for (const path of PUBLIC_PATHS) {
    root.get(path, async (ctx) => {
      const a = await endpoints[path]()
      ctx.status = a.status
      ctx.set(a.headers)
      ctx.type = a.contentType
      ctx.body = a.body
    })
  }
  root.get('openapi', '/api/v0/openapi.json', (ctx) => {
    ctx.body = openapi
  })
  root.all('/mcp', mcpRoute(api))

  const v0 = new Router({ prefix: '/api/v0' })
  const authenticateThrottled = throttleAuthFailures(deps.config.authFailuresPerMinPerIp, deps.metrics, (ctx) =>
    authenticate(ctx, api.control.store),
  )
  const mount = {
    body: { maxBytes: deps.config.maxBodyBytes, maxDepth: deps.config.maxJsonDepth },
    authenticate: authenticateThrottled,
  }
  for (const r of routes) mountRoute(v0, r, mount)

  app.use(serveConsole(deps.log))
  app.use(root.routes()).use(root.allowedMethods({ throw: true }))
  app.use(v0.routes()).use(v0.allowedMethods({ throw: true }))
  return app
}
