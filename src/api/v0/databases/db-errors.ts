// A statement's SQL failure -> the HTTP error a caller sees. Constraint violations are 409 with the
// database's own message and detail; bad values, types and operators are 400; a table that vanished
// is 404. Anything unexpected stays a 500 whose text is logged, not shown.
import type { DbError } from '../../../database-assets/db-error.js'
import { AppError } from '../../../infra/errors.js'

const withDetail = (message: string, detail?: string) => (detail ? `${message}: ${detail}` : message)

export function sqlFailure(e: DbError, retryAfterSec: number): AppError {
  const f = e.sql
  if (!f) return new AppError('internal', e.message)
  const code = f.code
  const text = withDetail(f.message, f.detail)
  // 23502 not null, 23503 foreign key, 23505 unique, 23514 check, 23P01 exclusion
  if (code.startsWith('23')) return new AppError('conflict', text)
  if (code === '42P01') return new AppError('not_found', f.message)
  if (code === '42501') return new AppError('forbidden', f.message)
  // 22 data exception, 42 syntax/undefined/type mismatch, 428C9 generated column, 0A not supported,
  // 55 object state (e.g. a view that is not insertable), 54 statement too large, P0 raised by a trigger
  if (/^(22|42|0A|55|54|P0|2F)/.test(code)) return new AppError('bad_request', text)
  // serialization failure, deadlock: rolled back, safe to retry
  if (code === '40001' || code === '40P01') return new AppError('unavailable', f.message, { retryAfterSec })
  return new AppError('internal', `${code} ${f.message}`)
}
