// From an asset id and a caller to that asset's database: 404 unknown asset, 403 without the needed
// permission (view to read, edit to insert), 400 when the asset is not a database, 501 for a
// provider this server does not run. The connection URL (or a managed asset's login) goes to the
// registry and nowhere else.
import { getAsset, permissionOf, type Permission } from '../../../control/assets.js'
import type { ControlStore } from '../../../control/store.js'
import type { Database, DatabaseRegistry } from '../../../database-assets/registry.js'
import { assetDatabase } from '../../../database-assets/resolve.js'
import { AppError } from '../../../infra/errors.js'

export async function openDatabase(
  store: ControlStore,
  registry: DatabaseRegistry,
  user: string,
  assetId: string,
  need: Permission,
): Promise<Database> {
  const asset = await getAsset(store, assetId)
  if (!asset) throw new AppError('not_found', 'Database asset not found')
  const permission = await permissionOf(store, user, asset)
  if (!permission || (need === 'edit' && permission !== 'edit'))
    throw new AppError('forbidden', 'Access denied to database')
  if (asset.type !== 'database') throw new AppError('bad_request', 'Asset is not a database asset')
  return assetDatabase(store, registry, asset)
}
