// Migrations on a real PostgreSQL: applied once even when several processes start together,
// recorded, idempotent, and a schema newer than the binary refuses to start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applySchemaMigrations, SchemaTooNewError } from '../../src/pg/schema.js'
import { MIGRATIONS } from '../../src/pg/migrations.js'
import { checkReachable, createPgPool } from '../../src/pg/pool.js'
import { startPostgres, type PgServer } from '../helpers/postgres.js'

let pgs: PgServer
beforeAll(async () => {
  pgs = await startPostgres()
})
afterAll(async () => pgs?.close())

const latest = Math.max(...MIGRATIONS.map((m) => m.version))

describe('postgres migrations', () => {
  it('five pools migrating at once apply every migration exactly once', async () => {
    const url = await pgs.createDatabase('migrate_race')
    const pools = Array.from({ length: 5 }, () => createPgPool({ url, schema: 'tandem', poolSize: 2 }))
    try {
      const results = await Promise.all(pools.map((p) => applySchemaMigrations(p, 'tandem')))
      expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1)
      expect(results.every((r) => r.to === latest)).toBe(true)
      const { rows } = await pgs.sql(
        'SELECT version FROM tandem.schema_migrations ORDER BY version',
        [],
        'migrate_race',
      )
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version))
      expect((await applySchemaMigrations(pools[0]!, 'tandem')).applied).toEqual([])
    } finally {
      await Promise.all(pools.map((p) => p.end()))
    }
  })

  it('tables live in the configured schema and queries find them through search_path', async () => {
    const url = await pgs.createDatabase('migrate_schema')
    const pool = createPgPool({ url, schema: 'collab_x', poolSize: 2 })
    try {
      await applySchemaMigrations(pool, 'collab_x')
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM doc_updates')
      expect(rows[0].n).toBe(0)
      const t = await pgs.sql(
        "SELECT table_schema FROM information_schema.tables WHERE table_name = 'doc_updates'",
        [],
        'migrate_schema',
      )
      expect(t.rows.map((r) => r.table_schema)).toEqual(['collab_x'])
    } finally {
      await pool.end()
    }
  })

  it('a schema at a newer version than the binary refuses to start, saying so', async () => {
    const url = await pgs.createDatabase('migrate_newer')
    const pool = createPgPool({ url, schema: 'tandem', poolSize: 2 })
    try {
      await applySchemaMigrations(pool, 'tandem')
      await pool.query("INSERT INTO schema_migrations (version, name) VALUES ($1, 'from-the-future')", [latest + 1])
      const err = await applySchemaMigrations(pool, 'tandem').catch((e: unknown) => e)
      expect(err).toBeInstanceOf(SchemaTooNewError)
      expect((err as Error).message).toMatch(
        new RegExp(`version ${latest + 1}, newer than this tandem knows \\(${latest}\\)`),
      )
    } finally {
      await pool.end()
    }
  })

  it('an unreachable server is reported naming the setting, never the URL', async () => {
    const pool = createPgPool({
      url: 'postgres://secret-user:hunter2@127.0.0.1:1/none',
      schema: 'tandem',
      poolSize: 2,
      connectTimeoutMs: 1000,
    })
    try {
      const err = (await checkReachable(pool).catch((e: unknown) => e)) as Error
      expect(err.message).toMatch(/^postgres-url: cannot reach PostgreSQL/)
      expect(err.message).not.toMatch(/hunter2|secret-user/)
    } finally {
      await pool.end()
    }
  })
})
