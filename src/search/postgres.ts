// The index on --postgres-url: a table in Tandem's schema, shared by every node of a cluster, so a
// document indexed by the node that committed it is found from any other.
import type { PgPool } from '../pg/pool.js'
import type { SearchDb } from './db.js'
import { SCHEMA_SQL } from './sql.js'

export class PgSearchDb implements SearchDb {
  readonly engine = 'postgres'

  private constructor(private readonly pool: PgPool) {}

  /** Creates the table once: nodes starting together take turns under an advisory lock. */
  static async open(pool: PgPool, schema: string): Promise<PgSearchDb> {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`tandem-search-schema:${schema}`])
      await client.query(SCHEMA_SQL)
      await client.query('COMMIT')
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw err
    } finally {
      client.release()
    }
    return new PgSearchDb(pool)
  }

  async query(sql: string, params: readonly (string | null)[]): Promise<unknown[][]> {
    return (await this.pool.query<unknown[]>({ text: sql, values: [...params], rowMode: 'array' })).rows
  }

  /** autovacuum does it */
  async maintain(): Promise<void> {}

  /** The pool is the process's own: its owner closes it. */
  async close(): Promise<void> {}
}
