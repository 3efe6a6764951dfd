// search_documents: with a query, full-text search of the workspace (GET /workspaces/{id}/search:
// words, "phrases", -word, pric* prefixes), each result pointing at its block for read_document
// mode=section or edit_document; without one, the workspace's documents by title (what
// list_documents answered before search folded it in: one tool fewer under the 12-tool bound).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { TandemApi } from './api.js'
import { structured } from './answer.js'
import { limit, OFFSET, READ_ONLY } from './params.js'

const SEARCH_LIMIT = { default: 10, max: 50 }

const DOCUMENT = z.object({
  asset_id: z.string(),
  title: z.string(),
  type: z.string().optional().describe('with a query: generic_doc, or database for a table-name match'),
  block: z
    .string()
    .nullable()
    .optional()
    .describe(
      'with a query: the matching block id, for read_document mode=section blocks=[it] or edit_document; null for a title match',
    ),
  snippet: z.string().optional().describe('with a query: the matching text, the words found between « and »'),
  rank: z.number().optional().describe('with a query: higher is a better match'),
})

export function registerSearchDocuments(server: McpServer, api: TandemApi): void {
  server.registerTool(
    'search_documents',
    {
      title: 'Search documents',
      description:
        "Finds where the workspace's documents say something: with `query`, full-text search of their text and titles (and database table names), best match first, each result with the matching block's id and a snippet, so read_document mode=section with that block id reads the place and edit_document can change it. Without `query`, lists the documents (asset_id and title). Only what the caller may view.",
      inputSchema: {
        query: z
          .string()
          .max(500)
          .optional()
          .describe(
            'Words to find (all of them; English stemming: "prices" finds "pricing"), "an exact phrase", -excluded, or pric* for a prefix. Omit to list every document.',
          ),
        limit: limit(SEARCH_LIMIT.default, SEARCH_LIMIT.max),
        offset: OFFSET,
      },
      outputSchema: {
        documents: z.array(DOCUMENT),
        next_offset: z.number().optional().describe('more results follow: call again with offset = next_offset'),
      },
      annotations: { title: 'Search documents', ...READ_ONLY },
    },
    ({ query, limit, offset }: { query?: string; limit?: number; offset?: number }) =>
      structured(async () => {
        if (query === undefined || query.trim() === '') {
          return {
            documents: (await api.assets())
              .filter((a) => a.type === 'generic_doc')
              .map((a) => ({ asset_id: a.id, title: a.title })),
          }
        }
        const page = await api.search(query, limit ?? SEARCH_LIMIT.default, offset ?? 0)
        const documents = page.results.map((r) => ({
          asset_id: r.doc_id,
          title: r.title,
          type: r.type,
          block: r.block,
          snippet: r.snippet,
          rank: r.rank,
        }))
        return { documents, ...(page.next !== undefined ? { next_offset: page.next } : {}) }
      }),
  )
}
