// DELETE /assets/{asset_id}[?hard=true] and POST /assets/{asset_id}/restore: owners and admins of
// the asset's workspace, for every asset type. The work is the lifecycle's (src/lifecycle/); here
// only who may ask. An unknown (or hard-deleted) asset is 404 whoever asks; a refusal writes nothing.
import { getAssetRecord } from '../../../control/assets.js'
import type { ControlStore } from '../../../control/store.js'
import { roleOf } from '../../../control/workspaces.js'
import { AppError } from '../../../infra/errors.js'
import type { ApiContext } from '../../context.js'
import { defineRoute, type RouteDef } from '../../route.js'
import { AssetDeletedOut, AssetParams, AssetRestoredOut, DeleteAssetQuery } from '@tandem/api/v0/assets'

const ERRORS = {
  403: 'caller is not an owner or admin of the asset’s workspace',
  404: 'asset not found (or hard deleted)',
}

async function requireAssetAdmin(store: ControlStore, assetId: string, user: string): Promise<void> {
  const { asset, deletion } = await getAssetRecord(store, assetId)
  if (!asset || deletion?.hard) throw new AppError('not_found', 'Asset not found')
  const role = await roleOf(store, asset.workspaceId, user)
  if (role !== 'owner' && role !== 'admin')
    throw new AppError('forbidden', 'Workspace owner or admin permission required')
}

export function assetLifecycleRoutes({ deps, control }: ApiContext): RouteDef[] {
  const { store } = control
  return [
    defineRoute({
      method: 'delete',
      path: '/assets/:asset_id',
      operationId: 'delete_asset',
      summary: 'Delete an asset (soft, restorable; or hard, irreversible)',
      tags: ['assets'],
      params: AssetParams,
      query: DeleteAssetQuery,
      response: AssetDeletedOut,
      errors: ERRORS,
      async handler(_ctx, { params, query, user }) {
        await requireAssetAdmin(store, params.asset_id, user)
        const d = await deps.lifecycle.deleteAsset(params.asset_id, user, query.hard)
        return { deleted_at_ms: d.deletedAtMs, hard: d.hard, by: d.by }
      },
    }),
    defineRoute({
      method: 'post',
      path: '/assets/:asset_id/restore',
      operationId: 'restore_asset',
      summary: 'Restore a soft-deleted asset',
      tags: ['assets'],
      params: AssetParams,
      response: AssetRestoredOut,
      errors: ERRORS,
      async handler(_ctx, { params, user }) {
        await requireAssetAdmin(store, params.asset_id, user)
        const r = await deps.lifecycle.restoreAsset(params.asset_id, user)
        return { asset_id: r.assetId, restored: r.restored }
      },
    }),
  ]
}
