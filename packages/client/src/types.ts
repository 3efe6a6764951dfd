// Request and response types of /api/v0 and the collab REST routes, taken from @tandem/api: the zod
// schemas the server validates with and the answer types its routes are checked against. The only
// module of the client that names that package, and only its types: the package's build (build.ts)
// writes every alias below out in full into dist/types.d.ts, so the published declarations name
// neither @tandem/api nor zod. `In` is what a caller may send (defaults optional), `Out` what the
// server answers.
import type { z } from 'zod'
import type { AssetContentResponse } from '@tandem/api/v0/asset-content'
import type { AssetDeletedOut, AssetRestoredOut } from '@tandem/api/v0/assets'
import type { CollabTokenRequest, CollabTokenResponse } from '@tandem/api/v0/collab-token'
import type {
  InsertDataRequest,
  InsertDataResponse,
  ListTablesResponse,
  ReadRowsResponse,
  Row,
} from '@tandem/api/v0/databases'
import type { MeOut, WorkspaceAssetsOut, WorkspaceDeletedAssetsOut } from '@tandem/api/v0/directory'
import type { SearchOut, SearchQueryParams } from '@tandem/api/v0/search'
import type { SourceReadiness } from '@tandem/api/v0/sources'
import type { UpdateWorkspaceToolRegistryRequestIn, WorkspaceToolRegistryOut } from '@tandem/api/v0/tool-registry'
import type { CreateWebhookRequest, CreatedWebhookOut, DeliveryListOut, WebhookListOut } from '@tandem/api/v0/webhooks'
import type * as Query from '@tandem/api/query'
import type * as Versions from '@tandem/api/versions'
import type * as Content from '@tandem/api/content'
import type * as Suggestions from '@tandem/api/suggestions'

type In<S extends z.ZodType> = z.input<S>
type Out<S extends z.ZodType> = z.output<S>

export type CollabTokenOptions = In<typeof CollabTokenRequest>
export type CollabToken = Out<typeof CollabTokenResponse>
export type AssetContent = Out<typeof AssetContentResponse>
export type AssetDeleted = Out<typeof AssetDeletedOut>
export type AssetRestored = Out<typeof AssetRestoredOut>
export type TableRow = Out<typeof Row>
export type TableList = Out<typeof ListTablesResponse>
export type RowsResult = Out<typeof ReadRowsResponse>
export type InsertResult = Out<typeof InsertDataResponse>
export type InsertOptions = Omit<In<typeof InsertDataRequest>, 'data'>
export type Me = Out<typeof MeOut>
export type WorkspaceAssets = Out<typeof WorkspaceAssetsOut>
export type DeletedAssets = Out<typeof WorkspaceDeletedAssetsOut>
export type SearchOptions = Omit<In<typeof SearchQueryParams>, 'q'>
export type SearchResults = Out<typeof SearchOut>
export type Sources = Out<typeof SourceReadiness>
export type ToolRegistry = Out<typeof WorkspaceToolRegistryOut>
export type ToolRegistryPatch = In<typeof UpdateWorkspaceToolRegistryRequestIn>
export type WebhookCreate = In<typeof CreateWebhookRequest>
export type CreatedWebhook = Out<typeof CreatedWebhookOut>
export type WebhookList = Out<typeof WebhookListOut>
export type DeliveryList = Out<typeof DeliveryListOut>
/** a named version of a document (collab REST `versions` routes) */
export type VersionRecord = Versions.VersionRecord
/** a ProseMirror JSON document (collab REST `content`) */
export type PmDocument = Content.PmDocument
export type ContentRead = Content.ContentRead
export type ContentWrite = Content.ContentWrite
export type ContentWritten = Content.ContentWritten
export type ContentChange = Content.ContentChange
/** a targeted edit (collab REST `content` PATCH with `edits`) */
export type ContentEdit = Content.ContentEdit
export type ContentEdits = Content.ContentEdits
/** the body of a targeted edit's 409 */
export type EditRefusal = Content.EditRefusal
/** part reads (collab REST `content` with `view=`) */
export type OutlineRead = Content.OutlineRead
export type OutlineEntry = Content.OutlineEntry
export type OutlineBlock = Content.OutlineBlock
/** blocks between two headings an outline of `detail: 'headings'` lists */
export type OutlineRange = Content.OutlineRange
export type SectionRead = Content.SectionRead
export type FindRead = Content.FindRead
export type FindMatch = Content.FindMatch
export type PartRead = Content.PartRead
/** an agent's presence and streams (collab REST `presence`, `stream`) */
export type PresenceShow = Content.PresenceShow
export type PresenceShown = Content.PresenceShown
export type StreamWhere = Content.StreamWhere
export type StreamState = Content.StreamState
/** a suggestion held for review (collab REST `suggestions`) */
export type Suggestion = Suggestions.SuggestionView
export type SuggestionStatus = Suggestions.SuggestionStatus
export type SuggestionShown = Suggestions.SuggestionShown
export type CompareOp = Query.CompareOp
export type IsValue = Query.IsValue
export type OrderTerm = Query.OrderTerm
