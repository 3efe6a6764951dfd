// The answers the console reads, as @tandem/client types them (the server's schemas).
import type { DeletedAssets, Me, WorkspaceAssets } from '@tandem/client'

export type { Me }
export type AssetSummary = WorkspaceAssets['assets'][number]
export type DeletedAsset = DeletedAssets['assets'][number]
