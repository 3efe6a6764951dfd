// PostgreSQL failures as callers should see them: losing the server (refused, reset, shut down,
// connect timeout) is `unavailable` (503, retry later); anything else stays as it is. Messages
// never carry the connection URL.
import { AppError } from '../../infra/errors.js'
import { describePgError } from '../../pg/pool.js'

const RETRY_AFTER_SEC = 1

// SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57P0x (shutdown, crash recovery)
const UNAVAILABLE_STATE = /^(08|53|57P0)/
const UNAVAILABLE_NODE = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/
const UNAVAILABLE_TEXT =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed/i

/** A statement that outlived postgres-query-timeout-ms: its connection is treated as lost. */
export class QueryTimeoutError extends Error {
  constructor(ms: number) {
    super(`PostgreSQL did not answer within ${ms} ms (postgres-query-timeout-ms)`)
  }
}

export function isUnavailable(err: unknown): boolean {
  if (err instanceof QueryTimeoutError) return true
  const e = err as { code?: unknown; message?: unknown }
  const code = typeof e?.code === 'string' ? e.code : ''
  return UNAVAILABLE_STATE.test(code) || UNAVAILABLE_NODE.test(code) || UNAVAILABLE_TEXT.test(String(e?.message ?? ''))
}

export function storageError(err: unknown, what = 'document storage'): unknown {
  if (!isUnavailable(err)) return err
  return new AppError('unavailable', `${what} is unavailable; retry shortly`, {
    retryAfterSec: RETRY_AFTER_SEC,
    details: describePgError(err),
  })
}
