// The one place errors become responses: validation failures are FastAPI/pydantic 422s (bounded:
// see validation/echo.ts), AppErrors use the error table's status (with Retry-After when set),
// everything else is a logged 500 whose message never reaches the caller. Asset content answers
// `{"message"}` instead of `{"detail"}`. JSON bodies are serialised here, not by Koa after every
// middleware has returned, so a body that cannot be serialised is still a logged JSON 500 and the
// access log sees the status that is sent.
import type { Context, Next } from 'koa'
import { answerFor, isAppError } from '../../infra/errors.js'
import type { Logger } from '../../infra/log.js'
import { ValidationFailed } from '../route.js'
import { echoInput, MAX_ECHO_ERRORS } from '../validation/echo.js'

const STATUS_TEXT: Record<number, string> = { 404: 'Not Found', 405: 'Method Not Allowed', 501: 'Not Implemented' }

function send(ctx: Context, status: number, message: string): void {
  ctx.status = status
  ctx.body = ctx.state.errorShape === 'message' ? { message } : { detail: message }
}

function mapError(ctx: Context, err: unknown, log: Logger): void {
  if (err instanceof ValidationFailed) {
    ctx.status = 422
    ctx.body = { detail: err.errors.slice(0, MAX_ECHO_ERRORS).map((e) => ({ ...e, input: echoInput(e.input) })) }
  } else if (isAppError(err)) {
    const a = answerFor(err)
    if (a.retryAfterSec !== undefined) ctx.set('Retry-After', String(a.retryAfterSec))
    send(ctx, a.status, a.message ?? 'Internal Server Error')
    if (a.status >= 500 && a.message === null) log.error({ err, reqId: ctx.state.reqId }, 'request failed')
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

/** Bodies Koa would JSON.stringify itself; everything else (text, bytes, streams) it sends as is. */
function isJsonBody(body: unknown): body is object {
  if (body === null || typeof body !== 'object') return false
  if (body instanceof Uint8Array || body instanceof Blob || body instanceof ReadableStream || body instanceof Response)
    return false
  return typeof (body as { pipe?: unknown }).pipe !== 'function'
}

function serialise(ctx: Context): void {
  if (!isJsonBody(ctx.body)) return
  const text = JSON.stringify(ctx.body)
  ctx.body = text
  ctx.type = 'json'
}

export function errorMapper(log: Logger) {
  return async function mapErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next()
      if (ctx.status === 404 && ctx.body === undefined) send(ctx, 404, 'Not Found')
    } catch (err) {
      mapError(ctx, err, log)
    }
    try {
      serialise(ctx)
    } catch (err) {
      log.error({ err, reqId: ctx.state.reqId }, 'response body could not be serialised')
      send(ctx, 500, 'Internal Server Error')
      serialise(ctx)
    }
  }
}
