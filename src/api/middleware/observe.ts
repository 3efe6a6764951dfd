// Request id (X-Request-Id, the caller's when it is sane, else fresh), one structured access-log
// line per response once it is sent, and per-route metrics. Only ids, the client address and the
// path reach the log: never headers, query strings or bodies, which is where keys and tokens travel.
import { randomUUID } from 'node:crypto'
import type { Context, Next } from 'koa'
import type { Logger } from '../../infra/log.js'
import type { Metrics } from '../../infra/metrics.js'

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/

export function observe(log: Logger, metrics: Metrics) {
  return async function observeRequest(ctx: Context, next: Next): Promise<void> {
    const started = process.hrtime.bigint()
    const given = ctx.get('x-request-id')
    const reqId = SANE_ID.test(given) ? given : randomUUID()
    ctx.state.reqId = reqId
    ctx.set('X-Request-Id', reqId)
    // Logged once the response is over and the handler has returned: with the status the client
    // was sent, or, when it went away first (aborted), the one it would have been sent.
    const closed = new Promise<void>((resolve) => ctx.res.once('close', resolve))
    try {
      await next()
    } finally {
      void closed.then(() => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9
        const route = (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? 'unmatched'
        const status = ctx.res.headersSent ? ctx.res.statusCode : ctx.status
        const aborted = !ctx.res.writableFinished
        metrics.httpRequests.inc({ listener: 'api', route, method: ctx.method, status: String(status) })
        metrics.httpDuration.observe({ listener: 'api', route }, seconds)
        log.info(
          {
            reqId,
            ip: ctx.ip,
            method: ctx.method,
            route,
            path: ctx.path,
            status,
            ...(aborted ? { aborted } : {}),
            ms: Math.round(seconds * 1e4) / 10,
            user: ctx.state.user ?? null,
          },
          'api request',
        )
      })
    }
  }
}
