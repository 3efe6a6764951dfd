// The one place a control store is made: PostgreSQL when --postgres-url is set (LevelDB is then
// not needed for the control plane), else the data dir's LevelDB.
import type { RootDb } from '../deps.js'
import type { Config } from '../infra/config.js'
import type { PgPool } from '../pg/pool.js'
import { HookedControlStore } from './hooked-store.js'
import { LevelControlStore } from './leveldb.js'
import { PgControlStore } from './postgres.js'

export interface ControlBacking {
  db?: RootDb | undefined
  pg?: PgPool | undefined
}

export function openControlStore(config: Config, backing: ControlBacking): HookedControlStore {
  if (config.postgresUrl) {
    if (!backing.pg) throw new Error('control store: postgres-url is set but no PostgreSQL pool was opened')
    return new HookedControlStore(new PgControlStore(backing.pg, { schema: config.postgresSchema, maxSerial: Math.floor(config.postgresPoolSize / 2), queryTimeoutMs: config.postgresQueryTimeoutMs }))
  }
  if (!backing.db) throw new Error('control store: no LevelDB was opened for the data dir')
  return new HookedControlStore(new LevelControlStore(backing.db))
}
