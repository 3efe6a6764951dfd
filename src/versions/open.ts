// Which version store a server runs on: the one beside its document store (PostgreSQL table,
// LevelDB sublevel, or memory).
import type { RootDb } from '../deps.js'
import type { Config } from '../infra/config.js'
import type { PgPool } from '../pg/pool.js'
import { LevelVersionStore } from './leveldb.js'
import { MemoryVersionStore } from './memory.js'
import { VERSION_ID } from './record.js'
import type { VersionStore } from './store.js'

export async function openVersionStore(kind: 'postgres' | 'leveldb' | 'memory', config: Pick<Config, 'fsync'>, db: RootDb | undefined, pool: PgPool | null): Promise<VersionStore> {
  if (kind === 'postgres') {
    // imported here: a server on LevelDB does not load the PostgreSQL modules at start
    const { PgVersionStore } = await import('./postgres.js')
    return new PgVersionStore(pool!)
  }
  if (kind === 'memory' || !db) return new MemoryVersionStore()
  return new LevelVersionStore(db, { sync: config.fsync })
}

/** A version's seq and state for rollback `{version}`; null when there is no such version. */
export async function versionState(versions: VersionStore, docId: string, id: string): Promise<{ seq: number; state: Uint8Array } | null> {
  if (!VERSION_ID.test(id)) return null
  const record = await versions.get(docId, id)
  const state = record && (await versions.state(docId, id))
  return record && state ? { seq: record.seq, state } : null
}
