// From a database asset to its open database: the asset's own settings, or for a managed postgres
// asset (no connection URL of its own), Tandem's server entered with the asset's login. A postgres
// asset with neither answers 503 unconfigured, from the registry.
import type { Asset } from '../control/assets.js'
import type { ControlStore } from '../control/store.js'
import { managedLoginOf } from './managed/login-record.js'
import { DEFAULT_PROVIDER, type Database, type DatabaseRegistry } from './registry.js'

export async function assetDatabase(store: ControlStore, registry: DatabaseRegistry, asset: Asset): Promise<Database> {
  const { provider, connectionUrl } = asset.database ?? { provider: DEFAULT_PROVIDER }
  if (provider === 'postgres' && !connectionUrl && registry.managed) {
    const login = await managedLoginOf(store, asset.id)
    if (login)
      return registry.database({ id: asset.id, provider, connectionUrl: registry.managed.connectionUrl(login) })
  }
  return registry.database({ id: asset.id, provider, ...(connectionUrl ? { connectionUrl } : {}) })
}
