// Shapes of the asset lifecycle endpoints (delete, restore). Not in the spec: its conventions hold
// (`{"detail": ...}` errors, pydantic-shaped 422s).
import { z } from 'zod'
import { Id } from '../ids.js'

export const AssetParams = z.object({ asset_id: Id })

export const DeleteAssetQuery = z.object({
  hard: z.boolean().default(false).describe('erase the document, its history and data in every store, irreversibly'),
})

export const AssetDeletedOut = z
  .object({
    deleted_at_ms: z.int().describe('when the asset was deleted, epoch ms'),
    hard: z.boolean(),
    by: z.string().describe('who deleted it'),
  })
  .meta({ id: 'AssetDeleted' })

export const AssetRestoredOut = z
  .object({
    asset_id: z.string(),
    restored: z.boolean().describe('false when the asset was not deleted (a repeated restore)'),
  })
  .meta({ id: 'AssetRestored' })
