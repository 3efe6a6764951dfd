// Creating a database asset. No provider asked for: postgres on Tandem's own server when it has one
// (--postgres-url), so every process and cluster node serves it; else pglite in the data dir.
// postgres without a connection URL is such a managed database: its database and role are made
// (provision.ts) under the asset's serial lock, and the asset and its login are written together.
import { createAsset, getAsset, type Asset, type NewAsset } from '../control/assets.js'
import { checkId, newId } from '../control/ids.js'
import { key, type ControlStore } from '../control/store.js'
import { assertProviderAllowed } from '../cluster/pglite-guard.js'
import { AppError } from '../infra/errors.js'
import { isDbError } from './db-error.js'
import { loginOps } from './managed/login-record.js'
import type { ManagedPostgres } from './managed/provision.js'
import type { DatabaseRegistry } from './registry.js'

export interface NewDatabaseAsset extends Omit<NewAsset, 'type' | 'database'> {
  /** default: the registry's (postgres with --postgres-url, else pglite) */
  provider?: string | undefined
  /** postgres on another server (a secret) */
  connectionUrl?: string | undefined
}

export async function createDatabaseAsset(
  store: ControlStore,
  registry: DatabaseRegistry,
  a: NewDatabaseAsset,
  nowMs: number,
): Promise<Asset> {
  const { provider = registry.defaultProvider, connectionUrl, ...rest } = a
  assertProviderAllowed(provider, registry.clusterMode)
  if (provider !== 'postgres' || connectionUrl) {
    return createAsset(
      store,
      { ...rest, type: 'database', database: { provider, ...(connectionUrl ? { connectionUrl } : {}) } },
      nowMs,
    )
  }
  const managed = registry.managed
  if (!managed)
    throw new AppError(
      'bad_request',
      '--connection-url is required for a postgres database asset (or run the server with --postgres-url to create it there)',
    )
  const id = a.id ? checkId(a.id, 'asset id') : newId('as')
  // Two creations of one id (two nodes, a retry) never provision at once: the second finds the asset.
  return store.serial(key('asset', id), async () => {
    if (await getAsset(store, id)) throw new AppError('conflict', `asset ${id} exists`)
    const login = await provision(managed, id)
    const asset = await createAsset(store, { ...rest, id, type: 'database', database: { provider: 'postgres' } }, nowMs)
    await store.batch(loginOps(id, login))
    return asset
  })
}

async function provision(managed: ManagedPostgres, id: string) {
  try {
    return await managed.provision(id)
  } catch (e) {
    if (isDbError(e) && e.kind === 'sql') {
      const why = e.sql?.code === '42501' ? " (Tandem's PostgreSQL user needs CREATEDB and CREATEROLE)" : ''
      throw new AppError('unavailable', `cannot create the asset's database on --postgres-url: ${e.message}${why}`)
    }
    throw new AppError(
      'unavailable',
      `cannot create the asset's database on --postgres-url: ${isDbError(e) ? e.message : 'unexpected failure'}`,
    )
  }
}
