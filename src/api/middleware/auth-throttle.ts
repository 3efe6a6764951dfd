// Failed X-API-KEY authentications per client address: past the limit every authenticated request
// from that address is 429 with Retry-After, before the key is even looked at (Hocuspocus's
// throttle does the same for its connections). ctx.ip is the client address
// (middleware/client-address.ts: the peer, or the client a trusted proxy names).
import type { Context } from 'koa'
import { AppError, isAppError } from '../../infra/errors.js'
import type { Metrics } from '../../infra/metrics.js'
import { KeyedBuckets } from '../../infra/rate-limit.js'

export function throttleAuthFailures<Caller>(
  perMin: number,
  metrics: Metrics,
  authenticate: (ctx: Context) => Promise<Caller>,
  clock: () => number = () => performance.now(),
): (ctx: Context) => Promise<Caller> {
  const failures = new KeyedBuckets(perMin, perMin / 60)
  return async (ctx) => {
    const ip = ctx.ip
    const wait = failures.waitMs(ip, clock())
    if (wait > 0) {
      metrics.rateLimited.inc({ listener: 'api', limit: 'auth_failures' })
      throw new AppError('rate_limited', 'too many failed authentications from this address', {
        retryAfterSec: Math.max(1, Math.ceil(wait / 1000)),
      })
    }
    try {
      return await authenticate(ctx)
    } catch (err) {
      if (isAppError(err) && err.status === 401) failures.take(ip, clock())
      throw err
    }
  }
}
