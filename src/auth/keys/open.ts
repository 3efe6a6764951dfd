// Where a process's signing keys come from: the --signing-keys file when given, else the database
// when --postgres-url is set (shared by every process), else the data dir (generated on first start).
import type { Config } from '../../infra/config.js'
import type { PgPool } from '../../pg/pool.js'
import { loadKeyRing, type KeyRing } from './ring.js'

export async function openKeyRing(config: Config, pg: PgPool | undefined): Promise<KeyRing> {
  if (config.signingKeys) return loadKeyRing(config.dataDir, config.signingKeys)
  if (config.postgresUrl) {
    if (!pg) throw new Error('signing keys: postgres-url is set but no PostgreSQL pool was opened')
    return (await import('./postgres.js')).loadPgKeyRing(pg)
  }
  return loadKeyRing(config.dataDir, '')
}
