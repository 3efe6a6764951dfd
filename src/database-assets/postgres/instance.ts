// A postgres-provider database: a pg Pool per asset. The connection URL comes from the control plane
// and stays inside the pool's config: never logged, never put in an error message. The deadline is
// the server's statement_timeout, backed by a client-side read timeout a little later.
import pg from 'pg'
import { fromDriverError } from '../db-error.js'
import type { DbInstance, SqlResult } from '../instance.js'

export interface PostgresOptions {
  connectionUrl: string
  poolSize: number
  deadlineMs: number
  connectTimeoutMs: number
}

// Every column comes back as its text: compiled statements return JSON text anyway.
const asText = { getTypeParser: () => (value: string) => value }

export class PostgresInstance implements DbInstance {
  private readonly pool: pg.Pool
  private closed: Promise<void> | undefined

  constructor(opts: PostgresOptions) {
    this.pool = new pg.Pool({
      connectionString: opts.connectionUrl,
      max: opts.poolSize,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: opts.connectTimeoutMs,
      statement_timeout: opts.deadlineMs,
      query_timeout: opts.deadlineMs + 2_000,
      application_name: 'tandem',
    })
    // An idle client whose server went away: drop it; the next statement reconnects.
    this.pool.on('error', () => undefined)
  }

  async query(sql: string, params: readonly (string | null)[]): Promise<SqlResult> {
    try {
      // Extended protocol even without parameters: one statement per query, never a script.
      const config = { text: sql, values: [...params], rowMode: 'array', types: asText, queryMode: 'extended' }
      const r = await this.pool.query(config as pg.QueryArrayConfig)
      return { rows: r.rows as unknown[][], rowCount: r.rowCount }
    } catch (e) {
      throw fromDriverError(e)
    }
  }

  async script(sql: string): Promise<void> {
    try {
      await this.pool.query(sql)
    } catch (e) {
      throw fromDriverError(e)
    }
  }

  onExit(): void {
    // a pool does not stop on its own
  }

  close(): Promise<void> {
    this.closed ??= this.pool.end().catch(() => undefined)
    return this.closed
  }
}
