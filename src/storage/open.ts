// Which document store a server runs on: PostgreSQL when postgres-url is set (reachability checked
// and migrations applied before anything is served), otherwise LevelDB in the data dir, or memory.
import type { RootDb } from '../deps.js'
import type { Config } from '../infra/config.js'
import { openPgPool } from '../pg/open.js'
import type { PgPool } from '../pg/pool.js'
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

/** `shared`: the process's pool, opened by the caller (who closes it); otherwise one is opened here. */
export async function openDocStore(config: Config, db: RootDb | undefined, shared?: PgPool): Promise<OpenedDocStore> {
  if (config.postgresUrl) {
    const pool = shared ?? (await openPgPool(config))
    return { store: new PgDocStore(pool, { queryTimeoutMs: config.postgresQueryTimeoutMs }), kind: 'postgres', pool, close: shared ? async () => {} : () => pool.end() }
  }
  if (!db) throw new Error('document store: no LevelDB was opened for the data dir')
  if (config.docStorage === 'memory') return { store: new MemoryDocStore(), kind: 'memory', pool: null, close: async () => {} }
  return { store: new LevelDocStore(db, { sync: config.fsync }), kind: 'leveldb', pool: null, close: async () => {} }
}
