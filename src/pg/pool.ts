// One pg pool per process for Tandem's own tables. Every connection has search_path set to
// Tandem's schema, so queries name tables unqualified. The URL is a secret: errors raised here
// name the setting and the cause, never the URL.
import pg from 'pg'

export interface PgOptions {
  url: string
  /** validated identifier (config: postgres-schema) */
  schema: string
  poolSize: number
  /** ms to open a connection before it counts as unreachable */
  connectTimeoutMs?: number
  applicationName?: string
}

export type PgPool = pg.Pool

export function createPgPool(o: PgOptions): PgPool {
  const pool = new pg.Pool({
    connectionString: o.url,
    max: o.poolSize,
    connectionTimeoutMillis: o.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    application_name: o.applicationName ?? 'tandem',
    // The schema is a checked identifier (config), so quoting it here is safe. synchronous_commit
    // is forced on: Tandem acknowledges an update once its COMMIT returns, which must mean the
    // commit is on disk whatever the server's default (it is not for `off`).
    options: `-c search_path="${o.schema}" -c synchronous_commit=on`,
  })
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {})
  // Nor may a checked-out one between two queries (a serial transaction waiting on other work, or
  // a query's last message arriving with the server's shutdown notice): pg-pool drops its own
  // listener while a client is out, and an 'error' event with no listener kills the process. The
  // client's next query fails, and the pool discards it when it comes back.
  pool.on('connect', (client) => client.on('error', () => {}))
  return pool
}

/** A connection error as words fit for a log or a startup message: no URL, no password. */
export function describePgError(err: unknown): string {
  const e = err as { code?: string; message?: string }
  const msg = (e?.message ?? String(err)).replace(/postgres(ql)?:\/\/\S+/g, '<postgres-url>')
  return e?.code ? `${msg} (${e.code})` : msg
}

/** Opens one connection and runs a trivial query; throws a message naming the setting. */
export async function checkReachable(pool: PgPool): Promise<void> {
  try {
    await pool.query('SELECT 1')
  } catch (err) {
    throw new Error(`postgres-url: cannot reach PostgreSQL: ${describePgError(err)}`)
  }
}
