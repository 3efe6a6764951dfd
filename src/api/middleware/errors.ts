// The one place errors become responses: validation failures are FastAPI/pydantic 422s, AppErrors
// use the error table's status (with Retry-After when set), everything else is a logged 500 whose
// message never reaches the caller. Asset content answers `{"message"}` instead of `{"detail"}`.
import type { Context, Next } from 'koa'
import { isAppError } from '../../infra/errors.js'
import type { Logger } from '../../infra/log.js'
import { ValidationFailed } from '../route.js'

const STATUS_TEXT: Record<number, string> = { 404: 'Not Found', 405: 'Method Not Allowed', 501: 'Not Implemented' }

function send(ctx: Context, status: number, message: string): void {
  ctx.status = status
  ctx.body = ctx.state.errorShape === 'message' ? { message } : { detail: message }
}

export function errorMapper(log: Logger) {
  return async function mapErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next()
      if (ctx.status === 404 && ctx.body === undefined) send(ctx, 404, 'Not Found')
    } catch (err) {
      if (err instanceof ValidationFailed) {
        ctx.status = 422
        ctx.body = { detail: err.errors }
      } else if (isAppError(err)) {
        if (err.extra.retryAfterSec !== undefined) ctx.set('Retry-After', String(Math.max(0, Math.ceil(err.extra.retryAfterSec))))
        send(ctx, err.status, err.expose ? err.message : 'Internal Server Error')
        if (err.status >= 500 && !err.expose) log.error({ err, reqId: ctx.state.reqId }, 'request failed')
      } else {
        const e = err as { status?: unknown; expose?: unknown }
        // http-errors thrown by Koa and the router (405 from allowedMethods, 400 from bad paths).
        if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true) {
          send(ctx, e.status, STATUS_TEXT[e.status] ?? (err as Error).message)
        } else {
          log.error({ err, reqId: ctx.state.reqId }, 'request failed')
          send(ctx, 500, 'Internal Server Error')
        }
      }
    }
  }
}
