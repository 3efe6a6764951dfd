// The MCP tools an agent runtime lists and calls. Each is one call (or two: a token, then the
// document) to an endpoint Tandem already serves, with the caller's own rights: its API key, or
// for documents an agent's token carrying its own permission on the asset (session-assets.ts).
// Edits carry `source: "mcp"` and the MCP client's name as attributions.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import type { McpTool } from '../control/tool-catalog.js'
import type { TandemApi } from './api.js'
import { registerReadDocument } from './read-tool.js'


const json = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] })

/** A refusal the agent reads (the API's status and reason), not a protocol error. */
async function answer(run: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return json(await run())
  } catch (err) {
    return { isError: true, content: [{ type: 'text', text: (err as Error).message }] }
  }
}

const format = z.enum(['markdown', 'prosemirror', 'text'])

/** What edit_document and suggest_edit take: a whole document and the base it was made from. */
const EDIT_INPUT = {
  asset_id: z.string(),
  content: z.union([z.string(), z.record(z.string(), z.unknown())]).describe('Markdown text, or a ProseMirror JSON document {type: "doc", content: [...]}'),
  format: format.optional(),
  base: z.string().optional(),
  root: z.string().optional(),
}

export function registerTools(server: McpServer, api: TandemApi, enabled: ReadonlySet<McpTool>, clientName: () => string): void {
  const on = (t: McpTool) => enabled.has(t)
  const attributions = () => ({ source: 'mcp', mcp_client: clientName().slice(0, 200) || 'unknown' })

  if (on('list_documents')) {
    server.registerTool(
      'list_documents',
      { description: "The workspace's documents (generic_doc assets) the caller may view: id and title.", inputSchema: {} },
      () => answer(async () => ({ documents: (await api.assets()).filter((a) => a.type === 'generic_doc').map((a) => ({ asset_id: a.id, title: a.title })) })),
    )
  }
  if (on('read_document')) registerReadDocument(server, api) // read-tool.ts: outline | section | range | find | whole
  if (on('edit_document')) {
    server.registerTool(
      'edit_document',
      {
        description:
          "Writes a whole document as Markdown (default) or ProseMirror JSON. Give the `base` read_document returned: the server applies only the difference between that state and your content, so edits others made since are kept. Answers {applied, inserted, deleted, base}; use the new base for the next edit. When the workspace requires approval for agents' edits, the edit is held as a suggestion instead (the answer carries `suggestion`).",
        inputSchema: EDIT_INPUT,
      },
      ({ asset_id, content, format, base, root }) =>
        answer(() => api.writeContent(asset_id, { format: format ?? (typeof content === 'string' ? 'markdown' : 'prosemirror'), content, base, root, attributions: attributions() })),
    )
  }
  if (on('suggest_edit')) {
    server.registerTool(
      'suggest_edit',
      {
        description:
          'Like edit_document, but held for a person to review: the document does not change until someone accepts the suggestion (whole or hunk by hunk). Answers the suggestion and its hunk ids.',
        inputSchema: EDIT_INPUT,
      },
      ({ asset_id, content, format, base, root }) =>
        answer(() => api.writeContent(asset_id, { format: format ?? (typeof content === 'string' ? 'markdown' : 'prosemirror'), content, base, root, attributions: attributions() }, true)),
    )
  }
  if (on('list_suggestions')) {
    server.registerTool(
      'list_suggestions',
      {
        description: "A document's suggestions, newest first, optionally only those with a status (open, accepted, partially_accepted, rejected, withdrawn).",
        inputSchema: { asset_id: z.string(), status: z.enum(['open', 'accepted', 'partially_accepted', 'rejected', 'withdrawn']).optional() },
      },
      ({ asset_id, status }) => answer(() => api.suggestions(asset_id, status)),
    )
  }
  if (on('read_table')) {
    server.registerTool(
      'read_table',
      {
        description: 'Reads rows of a table of a database asset. `query` is a PostgREST query string, e.g. "select=id,name&status=eq.open&order=id.desc&limit=20".',
        inputSchema: { asset_id: z.string(), table: z.string(), query: z.string().optional() },
      },
      ({ asset_id, table, query }) => answer(() => api.readRows(asset_id, table, query ?? '')),
    )
  }
  if (on('insert_rows')) {
    server.registerTool(
      'insert_rows',
      {
        description: 'Inserts rows into a table of a database asset; answers the inserted rows.',
        inputSchema: { asset_id: z.string(), table: z.string(), rows: z.array(z.record(z.string(), z.unknown())).min(1) },
      },
      ({ asset_id, table, rows }) => answer(() => api.insertRows(asset_id, table, rows)),
    )
  }
  if (on('comment')) {
    server.registerTool(
      'comment',
      {
        description: 'Comments on an asset: a new thread (anchored to the first occurrence of `quote` in the document when given) or a reply in `thread_id`.',
        inputSchema: { asset_id: z.string(), text: z.string(), quote: z.string().optional(), thread_id: z.string().optional() },
      },
      ({ asset_id, text, quote, thread_id }) => answer(() => api.comment(asset_id, { text, ...(quote ? { quote } : {}), ...(thread_id ? { thread_id } : {}) })),
    )
  }
}
