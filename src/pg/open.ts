// Opens the process's one pool on --postgres-url: reachable, on a UTF8 database (control keys and
// document ids order bytewise as UTF-8, like LevelDB), and at this binary's schema version before
// anything is served. Every failure names the setting, never the URL.
import type { Config } from '../infra/config.js'
import { applySchemaMigrations, SchemaTooNewError } from './schema.js'
import { checkReachable, createPgPool, describePgError, type PgPool } from './pool.js'

export async function openPgPool(
  config: Pick<Config, 'postgresUrl' | 'postgresSchema' | 'postgresPoolSize'>,
  applicationName = 'tandem',
): Promise<PgPool> {
  const pool = createPgPool({
    url: config.postgresUrl,
    schema: config.postgresSchema,
    poolSize: config.postgresPoolSize,
    applicationName,
  })
  try {
    await checkReachable(pool)
    const { rows } = await pool.query<{ server_encoding: string }>('SHOW server_encoding')
    if (rows[0]?.server_encoding !== 'UTF8')
      throw new Error(`postgres-url: the database must use UTF8 encoding, not ${rows[0]?.server_encoding}`)
    await applySchemaMigrations(pool, config.postgresSchema).catch((err: unknown) => {
      if (err instanceof SchemaTooNewError) throw err
      throw new Error(`postgres-url: migrating schema "${config.postgresSchema}" failed: ${describePgError(err)}`)
    })
    return pool
  } catch (err) {
    await pool.end().catch(() => undefined)
    throw err
  }
}
