// The MCP tools an agent runtime lists and calls. Each is one call (or two: a token, then the
// document) to an endpoint Tandem already serves, with the caller's own rights: its API key, or
// for documents an agent's token carrying its own permission on the asset (session-assets.ts).
// Edits carry `source: "mcp"` and the MCP client's name as attributions. Every tool is annotated
// (read-only or not, destructive or not, idempotent or not; never open-world: it acts in the
// session's workspace only), and the server's `instructions` tell the model how to use them well.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { McpTool } from '../control/tool-catalog.js'
import type { TandemApi } from './api.js'
import { answer } from './answer.js'
import { registerCommentTools } from './comment-tools.js'
import { registerDatabaseTools } from './database-tools.js'
import { DOCUMENT_ID } from './params.js'
import { registerReadDocument } from './read-tool.js'
import { registerSearchDocuments } from './search-tool.js'
import { registerSuggestionTools } from './suggestion-tools.js'

/** The initialize result's `instructions`: how a model uses these tools well, in a few lines. */
export const INSTRUCTIONS = [
  'Tandem: live documents shared with people typing in them, plus database tables and comments.',
  '- Find where something is said with search_documents (query: words, "a phrase", pric*): each result names its block, so read_document mode=section with blocks=<that id> reads the place; no query lists the documents. Databases and their tables: list_databases.',
  '- Large document: read_document mode=outline first, then mode=section (a heading or block ids) or mode=range for the part you need, or mode=find to search. Read whole only small documents.',
  '- Prefer targeted edits: edit_document with edits: [{old_text, new_text}] (old_text copied exactly from what you read) over writing the whole document.',
  '- Always send the `base` your last read_document or edit_document answered: your change merges with what others wrote since.',
  "- Under the workspace's approval mode your edits are held as suggestions for a person (the answer carries `suggestion`): see them with list_suggestions and read_suggestion, take one back with withdraw_suggestion.",
  '- A refusal reads "STATUS: reason" (403, 404, 409, 413): a 409 means the text changed or matched more than once; read again and retry.',
].join('\n')

const format = z.enum(['markdown', 'prosemirror', 'text'])

/** What edit_document and suggest_edit take: a whole document and the base it was made from. */
/** One targeted edit, as the content route takes it (src/content/edit-ops.ts checks it). */
const EDIT_OP = z.union([
  z.object({
    old_text: z
      .string()
      .min(1)
      .describe(
        'Text of the Markdown view to replace, copied exactly from read_document (it must occur once, or set replace_all)',
      ),
    new_text: z.string().describe('Markdown to put in its place (may add, split, merge or remove blocks)'),
    replace_all: z.boolean().optional().describe('Replace every occurrence of old_text'),
  }),
  z.object({
    insert: z.string().min(1).describe('Markdown to insert'),
    before: z
      .string()
      .optional()
      .describe('Insert before this block: a block id (b-...) from the outline, or a heading text'),
    after: z
      .string()
      .optional()
      .describe('Insert after this block: a block id (b-...) from the outline, or a heading text'),
    at: z.enum(['start', 'end']).optional().describe('Insert at the start or end of the document'),
  }),
  z.object({
    delete: z.string().min(1).describe('The block to delete: a block id (b-...) from the outline, or a heading text'),
    section: z.boolean().optional().describe('With a heading: delete the heading and its whole section'),
  }),
])

/** What edit_document and suggest_edit take: targeted edits, or a whole document, and the base they were made from. */
const EDIT_INPUT = {
  asset_id: DOCUMENT_ID,
  edits: z
    .array(EDIT_OP)
    .min(1)
    .max(100)
    .optional()
    .describe(
      'Targeted edits of the Markdown view (prefer these): [{old_text, new_text}], [{insert, after: BLOCK_ID}], [{delete: BLOCK_ID}]; all apply together or none. Give edits or content, not both.',
    ),
  content: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .optional()
    .describe(
      'The whole document instead of edits: Markdown text, or a ProseMirror JSON document {type: "doc", content: [...]}',
    ),
  format: format
    .optional()
    .describe(
      'How content is written: markdown (default for a string), prosemirror (default for an object) or text. Edits are always Markdown.',
    ),
  base: z
    .string()
    .optional()
    .describe(
      'The base your last read_document or edit_document answered: edits are found in the document as it was there, and merged with what others wrote since.',
    ),
  root: z.string().optional().describe("The root type to write; default: the editor's."),
}

type EditArgs = {
  asset_id: string
  edits?: unknown[]
  content?: string | Record<string, unknown>
  format?: 'markdown' | 'prosemirror' | 'text'
  base?: string
  root?: string
}

export function registerTools(
  server: McpServer,
  api: TandemApi,
  enabled: ReadonlySet<McpTool>,
  clientName: () => string,
): void {
  const on = (t: McpTool) => enabled.has(t)
  const attributions = () => ({ source: 'mcp', mcp_client: clientName().slice(0, 200) || 'unknown' })
  const write = async ({ asset_id, edits, content, format, base, root }: EditArgs, suggest: boolean) => {
    if ((edits === undefined) === (content === undefined))
      throw new Error('400: give edits (targeted, preferred) or content (the whole document), one of them')
    if (edits) return api.writeEdits(asset_id, { edits, base, root, attributions: attributions() }, suggest)
    return api.writeContent(
      asset_id,
      {
        format: format ?? (typeof content === 'string' ? 'markdown' : 'prosemirror'),
        content: content as string,
        base,
        root,
        attributions: attributions(),
      },
      suggest,
    )
  }

  if (on('search_documents')) registerSearchDocuments(server, api) // search-tool.ts: full-text search, or the list of documents
  if (on('read_document')) registerReadDocument(server, api) // read-tool.ts: outline | section | range | find | whole
  if (on('edit_document')) {
    server.registerTool(
      'edit_document',
      {
        description:
          "Changes a document. Prefer targeted `edits` on its Markdown view: {old_text, new_text} (old_text copied exactly from read_document; it must occur once, or set replace_all), {insert, before|after: BLOCK_ID} or {insert, at: 'end'}, {delete: BLOCK_ID, section?}. A 409 says why (no_match with the closest line, several_matches with their lines, changed_since_base): read that part again. Or send the whole document as `content` (Markdown or ProseMirror JSON). Always give the `base` your last read or edit answered: edits are found there and merged with what people typed since. Answers {applied, inserted, deleted, base, changes: [{line, end, content}]} (the edited regions as they now read); use the new base next. Under the workspace's approval mode the edit is held as a suggestion instead (the answer carries `suggestion`).",
        inputSchema: EDIT_INPUT,
        // a write may remove or replace text; the same call twice may change the document twice
        annotations: {
          title: 'Edit a document',
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: false,
        },
      },
      (args: EditArgs) => answer(() => write(args, false)),
    )
  }
  if (on('suggest_edit')) {
    server.registerTool(
      'suggest_edit',
      {
        description:
          'Like edit_document (targeted edits or a whole document, from a base), but held for a person to review: the document does not change until someone accepts the suggestion (whole or hunk by hunk). Answers the suggestion and its hunk ids.',
        inputSchema: EDIT_INPUT,
        // the document does not change: a suggestion is added, a new one each call
        annotations: {
          title: 'Suggest an edit',
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
      },
      (args: EditArgs) => answer(() => write(args, true)),
    )
  }
  // suggestion-tools.ts: list_suggestions, read_suggestion, withdraw_suggestion
  registerSuggestionTools(server, api, on)
  registerDatabaseTools(server, api, on) // database-tools.ts: list_databases, read_table, insert_rows
  registerCommentTools(server, api, on) // comment-tools.ts: read_comments, comment
}
