// ctx.ip is the client's address: the peer's, or behind a trusted proxy (--trusted-proxies) the
// client it names in X-Forwarded-For / Forwarded (src/infra/client-address.ts). Koa's own
// `proxy: true` would trust those headers from anyone, so the app keeps `proxy: false` and this
// middleware, first in the chain, sets the address every later one (limits, access log) reads.
import type { Context, Next } from 'koa'
import { TrustedProxies } from '../../infra/client-address.js'

export function clientAddress(trusted: readonly string[]) {
  const proxies = TrustedProxies.parse(trusted)
  return async function setClientAddress(ctx: Context, next: Next): Promise<void> {
    ctx.request.ip = proxies.clientOf(
      ctx.req.socket.remoteAddress ?? '',
      ctx.get('x-forwarded-for'),
      ctx.get('forwarded'),
    )
    await next()
  }
}
