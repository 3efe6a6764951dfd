// The endpoints both listeners serve the same way: liveness, the Prometheus text and the public
// signing keys (JWKS). Each listener mounts them with its own HTTP library; a failure rejects and
// is answered by the listener's error mapping.
import type { Metrics } from './metrics.js'

interface PublicAnswer {
  status: number
  contentType: string
  body: string
  headers: Record<string, string>
}

export const PUBLIC_PATHS = ['/healthz', '/metrics', '/.well-known/jwks.json'] as const

export type PublicEndpoints = Record<(typeof PUBLIC_PATHS)[number], () => Promise<PublicAnswer>>

const json = (value: unknown, headers: Record<string, string> = {}): PublicAnswer => ({
  status: 200,
  contentType: 'application/json',
  body: JSON.stringify(value),
  headers,
})

export function publicEndpoints(o: { metrics: Metrics; keys: { jwks: unknown } }): PublicEndpoints {
  return {
    '/healthz': async () => json({ status: 'ok' }),
    '/metrics': async () => {
      await o.metrics.withDefaults()
      return {
        status: 200,
        contentType: o.metrics.registry.contentType,
        body: await o.metrics.registry.metrics(),
        headers: {},
      }
    },
    // keys rotate: caches may keep the set for 5 minutes (verification keeps old keys longer)
    '/.well-known/jwks.json': async () => json(o.keys.jwks, { 'cache-control': 'public, max-age=300' }),
  }
}
