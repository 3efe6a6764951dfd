// The read_document tool: a document's outline, a section, a range of lines, the matches of a
// find (each answer bounded, with a `next` cursor), or the whole document. Every mode answers the
// `base` to pass to edit_document. Parameters map one to one onto the content route's query.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { TandemApi } from './api.js'
import { structured } from './answer.js'
import { DOCUMENT_ID, READ_ONLY } from './params.js'

const INPUT = {
  asset_id: DOCUMENT_ID,
  mode: z
    .enum(['outline', 'section', 'range', 'find', 'whole'])
    .optional()
    .describe(
      "outline (start here): headings and blocks with ids, line numbers and sizes. section: one heading's section (`heading`) or blocks (`blocks`). range: lines of the Markdown (`lines`). find: matches of `query` with line, block id and context. whole (default): the entire document; only for small ones.",
    ),
  heading: z
    .string()
    .optional()
    .describe(
      "section: the heading's text or its block id; the section runs to the next heading of its level or higher.",
    ),
  blocks: z
    .string()
    .optional()
    .describe(
      'section, range, outline, find: block ids from the outline, comma-separated ("b-x-1,b-x-9") or a range "FIRST..LAST".',
    ),
  lines: z
    .string()
    .optional()
    .describe('range, outline, find: 1-based lines of the Markdown view, "FROM-TO" (inclusive), "FROM-" or "LINE".'),
  query: z
    .string()
    .optional()
    .describe(
      'find: the text to find within a line, or with regex=true an RE2 regular expression (at most 500 characters).',
    ),
  regex: z.boolean().optional().describe('find: read `query` as an RE2 regular expression.'),
  ignore_case: z.boolean().optional().describe('find: match regardless of case.'),
  context: z.number().int().min(0).max(10).optional().describe('find: lines of context around each match (default 2).'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Skip this many lines (section, range), entries (outline) or matches (find).'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('At most this many lines (section, range), entries (outline) or matches (find, default 20).'),
  cursor: z
    .string()
    .optional()
    .describe('The `next` of a truncated answer: send it alone (with asset_id) to read on, at the same base.'),
  base: z
    .string()
    .optional()
    .describe(
      'Read the document as it was at this base (from an earlier read), e.g. to read more of what an outline showed; default: now.',
    ),
  format: z
    .enum(['markdown', 'prosemirror', 'text'])
    .optional()
    .describe('whole mode only: markdown (default), prosemirror JSON or text. Parts are always Markdown.'),
  root: z.string().optional().describe("The root type to read; default: the editor's."),
  show_people: z
    .boolean()
    .optional()
    .describe(
      'section, range, find: also show the people in the document where you are reading (your caret over the heading, the first block, or the first match), so they see where you are about to work.',
    ),
}

const OUTPUT = {
  base: z.string().describe('Pass it to edit_document as `base` so your edit merges with what others write meanwhile.'),
  root: z.string(),
  view: z.enum(['outline', 'section', 'range', 'find']).optional(),
  format: z.string().optional().describe('whole mode'),
  content: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .optional()
    .describe('Markdown: exactly these lines of the whole document (section, range, whole)'),
  line: z.number().optional().describe('first line of content'),
  end: z.number().optional().describe('last line of content'),
  parts: z
    .array(z.object({ line: z.number(), end: z.number(), content: z.string() }))
    .optional()
    .describe('several pieces, when the blocks named are apart'),
  lines: z.number().optional().describe('lines in the whole Markdown view'),
  chars: z.number().optional(),
  block_count: z.number().optional(),
  detail: z
    .enum(['blocks', 'headings'])
    .optional()
    .describe('outline: every block, or headings with ranges of blocks between them'),
  heading_levels: z.number().optional(),
  note: z.string().optional(),
  entries: z
    .array(z.record(z.string(), z.unknown()))
    .optional()
    .describe(
      'outline: {id, kind, level?, text, line, end, chars} or a range {kind: "blocks", id, last, count, line, end, chars}',
    ),
  blocks: z
    .array(z.record(z.string(), z.unknown()))
    .optional()
    .describe('section, range: the blocks of these lines {id, kind, line, end}'),
  query: z.string().optional(),
  matches: z
    .array(z.record(z.string(), z.unknown()))
    .optional()
    .describe('find: {id, line, column, match, context, context_line}'),
  truncated: z.boolean().optional().describe('more follows: call again with cursor = next'),
  next: z.string().optional(),
}

type Input = z.infer<z.ZodObject<typeof INPUT>>

/** Where a part read puts the agent's caret when it shows people (null: the read names no place). */
function placeOf(a: Input, read: Record<string, unknown>): { at?: string; quote?: string } | null {
  const matches = read.matches as { id?: string }[] | undefined
  if (read.view === 'find') {
    const first = matches?.[0]?.id
    return first ? { at: first, ...(a.query && !a.regex && !a.ignore_case ? { quote: a.query } : {}) } : null
  }
  if (read.view === 'section' && a.heading && !a.cursor) return { at: a.heading }
  const first = (read.blocks as { id?: string }[] | undefined)?.[0]?.id
  return first ? { at: first } : null
}

/** The content route's query for a part read. */
function partQuery(a: Input): Record<string, string> {
  if (a.cursor) return { cursor: a.cursor }
  const q: Record<string, string> = { view: a.mode! }
  for (const k of ['heading', 'blocks', 'lines', 'query', 'base', 'root', 'format'] as const)
    if (a[k] !== undefined) q[k] = a[k]
  for (const k of ['regex', 'ignore_case', 'context', 'offset', 'limit'] as const)
    if (a[k] !== undefined) q[k] = String(a[k])
  return q
}

export function registerReadDocument(server: McpServer, api: TandemApi): void {
  server.registerTool(
    'read_document',
    {
      description:
        'Reads a document. Start with mode=outline (headings and blocks with ids and line numbers, small for any document), then read what you need with mode=section or mode=range, or search with mode=find. Every answer is bounded: when `truncated`, call again with `cursor` = `next`. Every answer gives the `base` to pass to edit_document. Parts are Markdown lines exactly as in the whole document.',
      inputSchema: INPUT,
      outputSchema: OUTPUT,
      annotations: { title: 'Read a document', ...READ_ONLY },
    },
    (args) =>
      structured(async () => {
        const whole = !args.cursor && (args.mode === undefined || args.mode === 'whole')
        if (whole)
          return (await api.readContent(args.asset_id, args.format ?? 'markdown', args.root)) as Record<string, unknown>
        const read = (await api.readPart(args.asset_id, partQuery(args))) as Record<string, unknown>
        const place = args.show_people ? placeOf(args, read) : null
        // showing is a courtesy to the people there: the read stands whether or not it could be shown
        if (place)
          await api.show(args.asset_id, { ...place, ...(args.root ? { root: args.root } : {}) }).catch(() => {})
        return read
      }),
  )
}
