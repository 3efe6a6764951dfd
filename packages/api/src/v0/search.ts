// Shapes of the workspace search endpoint (beyond the interface; docs/search.md).
import { z } from 'zod'
import { Id } from '../ids.js'

export const SearchParams = z.object({ workspace_id: Id })

/** The deepest page: a search pages through results people look at, not a dump. */
export const MAX_SEARCH_OFFSET = 1000

/** Results per page at most: a page an agent or a person reads. */
const MAX_SEARCH_LIMIT = 50

export const SearchQueryParams = z.object({
  // Not bounded here: an empty or over-long query answers 400 naming the problem (src/search/query-text.ts).
  q: z.string().default('').describe('words, "a phrase", `or`, `-word`, `pric*` (a prefix); at most 500 characters'),
  limit: z.int().min(1).max(MAX_SEARCH_LIMIT).default(20).describe('results per page'),
  offset: z.int().min(0).max(MAX_SEARCH_OFFSET).default(0).describe('results skipped (the `next` of the page before)'),
})

const SearchResultOut = z
  .object({
    doc_id: z.string().describe('the asset id'),
    title: z.string(),
    type: z.string().describe('generic_doc, database, ...'),
    match: z.enum(['title', 'text', 'table']).describe('where the words were found'),
    block: z
      .string()
      .nullable()
      .describe(
        'the matching top-level block id (read_document section, edit_document insert/delete at it); null for a title or table match and a plain-text document',
      ),
    table: z.string().optional().describe('a database asset: the matching table'),
    snippet: z.string().describe('the matching text, the words found between « and »'),
    rank: z.number().describe('ts_rank of the best match: higher first'),
  })
  .meta({ id: 'SearchResult' })

export const SearchOut = z
  .object({
    results: z.array(SearchResultOut).describe('one per asset, best match first: only assets the caller may view'),
    limit: z.int(),
    offset: z.int(),
    next: z.int().optional().describe('the offset of the next page, when there is one'),
  })
  .meta({ id: 'SearchOut' })
