// Parameters several tools share, each described for the model that fills it in. One definition
// each, so a document id or a page reads the same in every tool.
import { z } from 'zod'

export const DOCUMENT_ID = z.string().describe('The document: an asset_id from search_documents.')
export const DATABASE_ID = z.string().describe('The database: an asset_id from list_databases.')
export const ANY_ASSET_ID = z.string().describe('The asset: an asset_id from search_documents or list_databases.')
export const SUGGESTION_ID = z
  .string()
  .describe(
    'The suggestion: an id from list_suggestions or from the `suggestion` a suggest_edit (or held edit_document) answered.',
  )
export const TABLE = z.string().describe('The table: a table `name` list_databases gave for this database.')
export const OFFSET = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe('Skip this many items (default 0): the `next_offset` of the previous page.')
export const limit = (dflt: number, max: number) =>
  z.number().int().min(1).max(max).optional().describe(`At most this many items (default ${dflt}, at most ${max}).`)

/** Tool hints (MCP annotations): every Tandem tool acts in the caller's workspace and nowhere else. */
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const
