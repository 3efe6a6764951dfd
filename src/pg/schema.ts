// Applies the schema migrations (MIGRATIONS) to Tandem's schema at start. One transaction under an
// advisory lock, so several processes starting at once apply them once (the others wait, then find
// nothing to do). A
// database at a newer version than this binary knows is refused: running old code on a newer
// schema could write what the newer code cannot read.
import type { PgPool } from './pool.js'
import { MIGRATIONS, type Migration } from './migrations.js'

export class SchemaTooNewError extends Error {}

export interface SchemaMigrationResult {
  from: number
  to: number
  applied: string[]
}

export async function applySchemaMigrations(
  pool: PgPool,
  schema: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<SchemaMigrationResult> {
  const latest = migrations.reduce((n, m) => Math.max(n, m.version), 0)
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    // Key the lock by schema, so two Tandem deployments sharing one database do not wait on each
    // other. Its name stays: processes of older versions take the same lock.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`tandem-migrate:${schema}`])
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`)
    await client.query(`SET LOCAL search_path TO "${schema}"`)
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`)
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations')
    const from = rows[0]?.v ?? 0
    if (from > latest) {
      throw new SchemaTooNewError(
        `postgres-url: schema "${schema}" is at version ${from}, newer than this tandem knows (${latest}): run a newer tandem`,
      )
    }
    const applied: string[] = []
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (m.version <= from) continue
      await client.query(m.sql)
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name])
      applied.push(`${m.version}-${m.name}`)
    }
    await client.query('COMMIT')
    return { from, to: Math.max(from, latest), applied }
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    throw err
  } finally {
    client.release()
  }
}
