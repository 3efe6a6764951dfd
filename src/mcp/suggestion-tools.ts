// The suggestion tools: list_suggestions (a document's, newest first), read_suggestion (one with its
// hunks, before and after in Markdown) and withdraw_suggestion (the caller's own, as its author).
// Each maps onto the document's collab REST (`/suggestions/v1/...`, docs/suggestions.md) with an
// agent's token the session mints for the call with the caller's own permission (session-assets.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { McpTool } from '../control/tool-catalog.js'
import type { TandemApi } from './api.js'
import { structured } from './answer.js'
import { DOCUMENT_ID, limit, OFFSET, READ_ONLY, SUGGESTION_ID } from './params.js'

const STATUS = z.enum(['open', 'accepted', 'partially_accepted', 'rejected', 'withdrawn'])
const SUGGESTIONS_PAGE = 50
const HUNKS_PAGE = 20
/** A hunk's before or after is cut past this many characters (and the hunk says so). */
const MAX_HUNK_CHARS = 20_000

const RECORD = z
  .looseObject({
    id: z.string(),
    status: STATUS,
    by: z.string().describe('its author'),
    base: z.string(),
    created_at_ms: z.number(),
  })
  .describe(
    '{id, base, root, by, attributions?, created_at_ms, status, decided_by?, decided_at_ms?, accepted_hunks, rejected_hunks}',
  )

const HUNK = z.object({
  id: z.string(),
  status: z.enum(['open', 'accepted', 'rejected']),
  before: z.string().describe("the blocks as the document had them at the suggestion's base, Markdown"),
  after: z.string().describe('the blocks as the suggestion would make them, Markdown'),
  truncated: z.boolean().optional().describe(`before or after was cut at ${MAX_HUNK_CHARS} characters`),
})

const cut = (s: string) => (s.length > MAX_HUNK_CHARS ? s.slice(0, MAX_HUNK_CHARS) : s)

export function registerSuggestionTools(server: McpServer, api: TandemApi, on: (t: McpTool) => boolean): void {
  if (on('list_suggestions')) {
    server.registerTool(
      'list_suggestions',
      {
        title: 'List suggestions',
        description:
          "A document's suggestions (changes held for a person to review), newest first: id, author (`by`), status. read_suggestion shows one's hunks.",
        inputSchema: {
          asset_id: DOCUMENT_ID,
          status: STATUS.optional().describe(
            'Only suggestions with this status (default: all). open: not decided yet; withdrawn: its author took it back.',
          ),
          offset: OFFSET,
          limit: limit(SUGGESTIONS_PAGE, 200),
        },
        outputSchema: {
          suggestions: z.array(RECORD),
          total: z.number(),
          next_offset: z.number().optional().describe('more follow: call again with offset = next_offset'),
        },
        annotations: { title: 'List suggestions', ...READ_ONLY },
      },
      ({ asset_id, status, offset = 0, limit = SUGGESTIONS_PAGE }) =>
        structured(async () => {
          const { suggestions } = (await api.suggestions(asset_id, status)) as { suggestions: z.infer<typeof RECORD>[] }
          const next = offset + limit
          return {
            suggestions: suggestions.slice(offset, next),
            total: suggestions.length,
            ...(next < suggestions.length ? { next_offset: next } : {}),
          }
        }),
    )
  }
  if (on('read_suggestion')) {
    server.registerTool(
      'read_suggestion',
      {
        title: 'Read a suggestion',
        description:
          'One suggestion with its hunks: each a stretch of changed blocks with its id, status (open, accepted, rejected), and its before and after in Markdown. Hunks are paged (offset, limit).',
        inputSchema: {
          asset_id: DOCUMENT_ID,
          suggestion_id: SUGGESTION_ID,
          offset: OFFSET,
          limit: limit(HUNKS_PAGE, 100),
        },
        outputSchema: {
          suggestion: RECORD,
          hunks: z.array(HUNK),
          hunk_count: z.number(),
          next_offset: z.number().optional().describe('more hunks follow: call again with offset = next_offset'),
        },
        annotations: { title: 'Read a suggestion', ...READ_ONLY },
      },
      ({ asset_id, suggestion_id, offset = 0, limit = HUNKS_PAGE }) =>
        structured(async () => {
          const shown = await api.suggestion(asset_id, suggestion_id)
          const next = offset + limit
          const hunks = shown.hunks.slice(offset, next).map((h) => {
            const truncated = h.before.length > MAX_HUNK_CHARS || h.after.length > MAX_HUNK_CHARS
            return {
              id: h.id,
              status: h.status,
              before: cut(h.before),
              after: cut(h.after),
              ...(truncated ? { truncated } : {}),
            }
          })
          return {
            suggestion: shown.suggestion,
            hunks,
            hunk_count: shown.hunks.length,
            ...(next < shown.hunks.length ? { next_offset: next } : {}),
          }
        }),
    )
  }
  if (on('withdraw_suggestion')) {
    server.registerTool(
      'withdraw_suggestion',
      {
        title: 'Withdraw a suggestion',
        description:
          "Withdraws a suggestion you made (its status becomes withdrawn; the document is unchanged), e.g. before suggesting a better one. Only its author may: someone else's is refused, for a person to review. A decided suggestion answers 409 with its status.",
        inputSchema: { asset_id: DOCUMENT_ID, suggestion_id: SUGGESTION_ID },
        outputSchema: { suggestion: RECORD },
        // a decision that cannot be undone; asking again changes nothing more (409, already withdrawn)
        annotations: {
          title: 'Withdraw a suggestion',
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: true,
          openWorldHint: false,
        },
      },
      ({ asset_id, suggestion_id }) =>
        structured(async () => ({ suggestion: (await api.withdrawSuggestion(asset_id, suggestion_id)).suggestion })),
    )
  }
}
