// POST /assets/{asset_id}/collab-token: an owner or admin of the asset's workspace mints a capability
// token for the asset's document. Rooms are namespaced by workspace: org = workspace id, doc_id =
// asset id. Only generic_doc assets are reachable; any other asset answers exactly like a missing one.
// A caller whose key or user is an agent's gets a token that says so (claim `agent`), whatever
// attributions it asks for: the workspace's approval mode rules its edits (src/agents/).
import { mintToken } from '../../../auth/capability.js'
import { getAsset, permissionOf } from '../../../control/assets.js'
import { roleOf } from '../../../control/workspaces.js'
import { AppError } from '../../../infra/errors.js'
import type { ApiContext } from '../../context.js'
import { ValidationFailed, defineRoute, type RouteDef } from '../../route.js'
import { AssetParams, CollabTokenRequest, CollabTokenResponse } from '@tandem/api/v0/collab-token'
import { attributionErrors } from './attribution-errors.js'

const BRANCH = 'main'

export function collabTokenRoutes({ deps, control }: ApiContext): RouteDef[] {
  const { store } = control
  return [
    defineRoute({
      method: 'post',
      path: '/assets/:asset_id/collab-token',
      operationId: 'create_collab_token',
      summary: 'Create collaboration token',
      tags: ['assets'],
      params: AssetParams,
      body: CollabTokenRequest,
      bodyOptional: true,
      response: CollabTokenResponse,
      errors: {
        403: 'caller is not an owner or admin of the workspace, or has no permission on the asset',
        404: 'no generic_doc asset with this id',
      },
      async handler(_ctx, { params, body, user, agent }) {
        const invalid = attributionErrors(body.attributions)
        if (invalid.length) throw new ValidationFailed(invalid)
        const asset = await getAsset(store, params.asset_id)
        if (!asset || asset.type !== 'generic_doc') throw new AppError('not_found', 'Asset not found')
        const role = await roleOf(store, asset.workspaceId, user)
        if (role !== 'owner' && role !== 'admin')
          throw new AppError('forbidden', 'Workspace owner or admin permission required')
        const permission = await permissionOf(store, user, asset)
        if (!permission) throw new AppError('forbidden', 'No permission on this asset')
        const acc = body.access === 'edit' && permission === 'edit' ? 'rw' : 'r'
        const { token, expiresAtMs } = await mintToken(
          deps.keys,
          {
            sub: user,
            org: asset.workspaceId,
            doc: asset.id,
            branch: BRANCH,
            acc,
            asset: asset.id,
            attr: body.attributions,
            agent,
            ttlSec: deps.config.tokenTtlSec,
          },
          deps.now(),
        )
        const { restUrl, wsUrl } = deps.publicUrls()
        return {
          token,
          access_type: acc,
          doc_id: asset.id,
          org: asset.workspaceId,
          rest_url: restUrl,
          ws_url: wsUrl,
          expires_at_ms: expiresAtMs,
          branch: BRANCH,
        }
      },
    }),
  ]
}
