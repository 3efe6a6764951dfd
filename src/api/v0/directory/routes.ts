// GET /me and GET /workspaces/{workspace_id}/assets: the read endpoints a client needs to find what
// it can open (the spec has none). Same key auth and error shapes as the spec's endpoints; an asset
// the caller may not view is left out, exactly as if it did not exist. `?deleted=true` lists the
// soft-deleted ones instead, for the owners and admins who may restore them.
import { listDeletedAssets, viewableAssets } from '../../../control/assets.js'
import { getWorkspace, listWorkspaces, roleOf } from '../../../control/workspaces.js'
import { AppError } from '../../../infra/errors.js'
import type { ApiContext } from '../../context.js'
import { defineRoute, type RouteDef } from '../../route.js'
import { z } from 'zod'
import {
  MeOut,
  WorkspaceAssetsOut,
  WorkspaceAssetsQuery,
  WorkspaceDeletedAssetsOut,
  WorkspaceParams,
} from '@tandem/api/v0/directory'

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
/** Case-insensitive first, so `doc` and `Notes` sort as people expect; ties by exact text. */
const byName = (a: string, b: string) => cmp(a.toLowerCase(), b.toLowerCase()) || cmp(a, b)

export function directoryRoutes({ control }: ApiContext): RouteDef[] {
  const { store } = control
  return [
    defineRoute({
      method: 'get',
      path: '/me',
      operationId: 'get_me',
      summary: 'The caller and their workspaces',
      tags: ['me'],
      response: MeOut,
      async handler(_ctx, { user }) {
        const workspaces = (await listWorkspaces(store, user))
          .filter((w) => w.role !== undefined)
          .map((w) => ({ id: w.id, name: w.name, role: w.role! }))
          .sort((a, b) => byName(a.name, b.name) || byName(a.id, b.id))
        return { user_id: user, workspaces }
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workspaces/:workspace_id/assets',
      operationId: 'list_workspace_assets',
      summary: 'List the assets of a workspace the caller may view (or, with deleted=true, its soft-deleted assets)',
      tags: ['workspaces'],
      params: WorkspaceParams,
      query: WorkspaceAssetsQuery,
      response: z.union([WorkspaceAssetsOut, WorkspaceDeletedAssetsOut]),
      errors: {
        403: 'caller is not a member of the workspace (deleted=true: not an owner or admin)',
        404: 'workspace not found',
      },
      async handler(_ctx, { params, query, user }) {
        if (!(await getWorkspace(store, params.workspace_id))) throw new AppError('not_found', 'Workspace not found')
        const role = await roleOf(store, params.workspace_id, user)
        if (!role) throw new AppError('forbidden', 'Not a member of this workspace')
        if (query.deleted) {
          // Owners and admins restore any asset of their workspace, whatever their own grant on it.
          if (role !== 'owner' && role !== 'admin')
            throw new AppError('forbidden', 'Workspace owner or admin permission required')
          const deleted = (await listDeletedAssets(store, params.workspace_id))
            .map(({ asset, deletion }) => ({
              id: asset.id,
              type: asset.type,
              title: asset.title,
              deleted_at_ms: deletion.deletedAtMs,
              deleted_by: deletion.by,
            }))
            .sort((a, b) => b.deleted_at_ms - a.deleted_at_ms || byName(a.title, b.title))
          return { workspace_id: params.workspace_id, assets: deleted }
        }
        const assets = (await viewableAssets(store, params.workspace_id, user)).map(({ asset: a, access }) => ({
          id: a.id,
          type: a.type,
          title: a.title,
          access,
        }))
        assets.sort((a, b) => byName(a.title, b.title) || byName(a.id, b.id))
        return { workspace_id: params.workspace_id, assets }
      },
    }),
  ]
}
