// A failure of one statement, in provider-neutral terms. `sql` failures carry the server's own
// SQLSTATE, message and detail; the others say why the statement could not finish.
//   unreachable  the server refused or dropped the connection, or is starting/shutting down
//   deadline     the statement ran past the query deadline and was stopped
//   crashed      the embedded instance died under the statement
export type DbFailure = 'sql' | 'unreachable' | 'deadline' | 'crashed'

export interface SqlErrorFields {
  code: string
  message: string
  detail?: string
  hint?: string
  constraint?: string
  table?: string
  column?: string
}

export class DbError extends Error {
  constructor(
    readonly kind: DbFailure,
    message: string,
    readonly sql?: SqlErrorFields,
  ) {
    super(message)
  }
}

export const isDbError = (e: unknown): e is DbError => e instanceof DbError

// SQLSTATEs meaning "the server cannot take statements right now": connection exceptions (08),
// admin/crash shutdown and cannot-connect-now (57P0x), too many connections (53300), and the server
// refusing this connection's credentials or database (28xxx, 3D000): the caller cannot fix those.
const UNREACHABLE_STATES = /^(08|28|3D000|57P0[1-4]|53300)/
const NODE_NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
])

/** Wraps whatever a driver threw. Never copies connection parameters into the message. */
export function fromDriverError(e: unknown): DbError {
  if (isDbError(e)) return e
  const err = (e ?? {}) as Record<string, unknown>
  const code = typeof err.code === 'string' ? err.code : ''
  const message = typeof err.message === 'string' ? err.message : String(e)
  if (NODE_NET_CODES.has(code)) return new DbError('unreachable', `database server unreachable (${code})`)
  if (/^[0-9A-Z]{5}$/.test(code)) {
    const fields: SqlErrorFields = { code, message }
    for (const k of ['detail', 'hint', 'constraint', 'table', 'column'] as const)
      if (typeof err[k] === 'string' && err[k]) fields[k] = err[k] as string
    if (UNREACHABLE_STATES.test(code))
      return new DbError('unreachable', `database server unavailable (${code})`, fields)
    if (code === '57014') return new DbError('deadline', 'statement exceeded the query deadline', fields)
    return new DbError('sql', message, fields)
  }
  // node-postgres reports dropped connections and connect timeouts without a code.
  if (
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      message,
    )
  ) {
    return new DbError('unreachable', 'database server unreachable (connection lost)')
  }
  if (/Query read timeout/i.test(message)) return new DbError('deadline', 'statement exceeded the query deadline')
  return new DbError('crashed', message)
}
