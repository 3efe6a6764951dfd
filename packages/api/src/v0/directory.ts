// Shapes of the directory endpoints (not in the spec): who the caller is, their workspaces, and the
// assets of a workspace they may open. The console reads them; other clients may too.
import { z } from 'zod'
import { Id } from '../ids.js'

export const WorkspaceParams = z.object({ workspace_id: Id })

export const WorkspaceAssetsQuery = z.object({
  deleted: z
    .boolean()
    .default(false)
    .describe('list the soft-deleted assets instead (workspace owners and admins only), the ones restore brings back'),
})

const WorkspaceSummary = z
  .object({ id: z.string(), name: z.string(), role: z.enum(['owner', 'admin', 'member']) })
  .meta({ id: 'WorkspaceSummary' })

export const MeOut = z
  .object({
    user_id: z.string().describe("the caller's user id (an e-mail)"),
    workspaces: z.array(WorkspaceSummary).describe('sorted by name, ignoring case'),
  })
  .meta({ id: 'MeOut' })

const AssetSummary = z
  .object({
    id: z.string(),
    type: z.string().describe('generic_doc, database, file, ...'),
    title: z.string(),
    access: z.enum(['view', 'edit']).describe("the caller's permission on the asset"),
  })
  .meta({ id: 'AssetSummary' })

export const WorkspaceAssetsOut = z
  .object({
    workspace_id: z.string(),
    assets: z.array(AssetSummary).describe('only assets the caller may view, sorted by title, ignoring case'),
  })
  .meta({ id: 'WorkspaceAssetsOut' })

const DeletedAssetSummary = z
  .object({
    id: z.string(),
    type: z.string(),
    title: z.string(),
    deleted_at_ms: z.int().describe('when it was deleted, epoch ms'),
    deleted_by: z.string().describe('who deleted it'),
  })
  .meta({ id: 'DeletedAssetSummary' })

export const WorkspaceDeletedAssetsOut = z
  .object({
    workspace_id: z.string(),
    assets: z.array(DeletedAssetSummary).describe('soft-deleted assets, most recently deleted first'),
  })
  .meta({ id: 'WorkspaceDeletedAssetsOut' })
