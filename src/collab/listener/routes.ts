// The collab listener's plain HTTP routes beside collab REST, the same on both transports: health,
// metrics and JWKS (infra/public-endpoints.ts) and /readyz, which answers 503 while the listener
// stops, the store fails or (in a cluster) the bus is down.
import { collabErrorReply } from '../../infra/errors.js'
import { PUBLIC_PATHS, publicEndpoints } from '../../infra/public-endpoints.js'
import type { ListenerContext } from './deps.js'
import type { HttpReply } from './rest-dispatch.js'

export type PublicPath = (typeof PUBLIC_PATHS)[number]

export interface ListenerRoutes {
  readonly publicPaths: readonly PublicPath[]
  servePublic(path: PublicPath, reply: HttpReply): void
  readyz(reply: HttpReply): void
}

export function listenerRoutes(d: ListenerContext, ready: () => boolean): ListenerRoutes {
  const endpoints = publicEndpoints(d)
  return {
    publicPaths: PUBLIC_PATHS,
    servePublic(path, reply) {
      endpoints[path]().then(
        (a) => reply.send(a.status, a.body, a.contentType, a.headers),
        (err: unknown) => {
          d.log.error({ err, path }, 'public endpoint failed')
          const { status, body } = collabErrorReply(err)
          reply.json(status, body)
        },
      )
    },
    readyz(reply) {
      const status = !ready()
        ? 'shutting down'
        : !d.storageHealth.ok
          ? 'storage unavailable'
          : d.clusterReady && !d.clusterReady()
            ? 'cluster bus unavailable'
            : 'ready'
      reply.json(status === 'ready' ? 200 : 503, { status })
    },
  }
}
