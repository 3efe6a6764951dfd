// Which document store a server runs on: PostgreSQL when postgres-url is set (reachability checked
// and migrations applied before anything is served), otherwise LevelDB in the data dir, or memory.
import type { RootDb } from '../deps.js'
import type { Config } from '../infra/config.js'
import { migrate, SchemaTooNewError } from '../pg/migrate.js'
import { checkReachable, createPgPool, describePgError, type PgPool } from '../pg/pool.js'
import type { DocStore } from './doc-store.js'
import { LevelDocStore } from './leveldb/store.js'
import { MemoryDocStore } from './memory.js'
import { PgDocStore } from './postgres/store.js'

export interface OpenedDocStore {
  store: DocStore
  kind: 'postgres' | 'leveldb' | 'memory'
  /** the process's PostgreSQL pool when postgres-url is set (shared with the control plane) */
  pool: PgPool | null
  /** closes what was opened here (the pool); the LevelDB stays the server's */
  close(): Promise<void>
}

export async function openPgPool(config: Config): Promise<PgPool> {
  const pool = createPgPool({ url: config.postgresUrl, schema: config.postgresSchema, poolSize: config.postgresPoolSize })
  try {
    await checkReachable(pool)
    await migrate(pool, config.postgresSchema).catch((err: unknown) => {
      if (err instanceof SchemaTooNewError) throw err
      throw new Error(`postgres-url: migrating schema "${config.postgresSchema}" failed: ${describePgError(err)}`)
    })
    return pool
  } catch (err) {
    await pool.end().catch(() => {})
    throw err
  }
}

export async function openDocStore(config: Config, db: RootDb): Promise<OpenedDocStore> {
  if (config.postgresUrl) {
    const pool = await openPgPool(config)
    return { store: new PgDocStore(pool, { queryTimeoutMs: config.postgresQueryTimeoutMs }), kind: 'postgres', pool, close: () => pool.end() }
  }
  if (config.docStorage === 'memory') return { store: new MemoryDocStore(), kind: 'memory', pool: null, close: async () => {} }
  return { store: new LevelDocStore(db), kind: 'leveldb', pool: null, close: async () => {} }
}
