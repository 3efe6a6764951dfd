// One-line emitters for the places where changes happen outside this folder.
import type { ControlStore } from '../control/store.js'
import { getAsset } from '../control/assets.js'
import type { ServerDeps } from '../deps.js'
import { webhooksOf } from './service.js'

/**
 * rows.inserted, after the database committed the rows. The rows live in the asset's own database,
 * not in the outbox's store, so this is recorded right after (before the 2xx), not in the same write.
 */
export async function rowsInserted(deps: ServerDeps, store: ControlStore, assetId: string, table: string, count: number): Promise<void> {
  const webhooks = webhooksOf(deps)
  if (!webhooks) return
  try {
    const asset = await getAsset(store, assetId)
    if (asset) await webhooks.emit(asset.workspaceId, 'rows.inserted', assetId, { asset_id: assetId, table, count })
  } catch (err) {
    deps.log.error({ err, assetId }, 'rows.inserted event not recorded')
  }
}
