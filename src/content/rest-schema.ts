// The content route's declaration (GET|PATCH /content/v1/{org}/{doc_id}): its query, its body
// (a whole document in a format, or targeted edits) and its answers. Light: the Markdown parser
// and printer load on the first content request; these checks run before.
import { z } from 'zod'
import { attributions } from '../collab/rest/fields.js'
import { UNPROCESSABLE } from '../collab/rest/route-input.js'
import { declareRoutes } from '../collab/rest/route-model.js'
import { AppError } from '../infra/errors.js'
import { PM_JSON_DEPTH } from './depth.js'
import { STREAM_BODY_MEDIA } from './stream-body.js'
import { PresenceShow, PresenceShown, StreamCall, StreamQuery, StreamState } from './agent-schema.js'
import { rootName } from './root-name.js'
import { editOpsOf, type EditOp } from './edit-ops.js'
import { FORMATS, type Format } from './format-names.js'

export { rootName }
export type { StreamCallBody } from './agent-schema.js'

const FORMAT = `format must be one of ${FORMATS.join(', ')}`
const format = z.enum(FORMATS, { error: FORMAT })

/** A part read's parameter: parts-params.ts reads them together (which go with which view). */
const part = (description: string) =>
  z
    .string()
    .optional()
    .meta({ description: `part read: ${description}` })

const ContentQuery = z.object({
  format: format.optional(),
  root: rootName.optional(),
  view: part('outline | section | range | find'),
  cursor: part('the `next` of a truncated part read, sent alone'),
  base: part('the base to read at'),
  heading: part('view=section: a heading’s text or block id'),
  blocks: part('block ids, comma-separated, or FIRST..LAST'),
  lines: part('view=range: FROM-TO, 1-based lines of the Markdown view'),
  offset: part('characters to skip'),
  limit: part('at most this many characters (results, for find)'),
  query: part('view=find: the text or RE2 pattern'),
  regex: part('view=find: true or false'),
  ignore_case: part('view=find: true or false'),
  context: part('view=find: lines of context, 0 to 10'),
})

/** Targeted edits, checked by edit-ops.ts (`edits[2].after: ...`). */
const edits = z
  .unknown()
  .transform((raw, ctx) => {
    try {
      return editOpsOf(raw)
    } catch (err) {
      if (!(err instanceof AppError)) throw err
      ctx.addIssue({
        code: 'custom',
        message: err.message,
        ...(err.code === 'validation' ? { params: UNPROCESSABLE } : {}),
      })
      return z.NEVER
    }
  })
  .meta({
    type: 'array',
    description:
      'targeted edits of the Markdown view: {old_text, new_text, replace_all?}, {insert, before | after | at} or {delete, section?}',
  })

/** A whole document in a format, or targeted edits of its Markdown view (checked present above). */
type Change = { format: Format; content: unknown } | { ops: EditOp[] }
const changeOf = (ops: EditOp[] | undefined, format: Format | null | undefined, content: unknown): Change =>
  ops ? { ops } : { format: format!, content }

const SHAPE = '{"format", "content", "base"?, "root"?} or {"edits": [...], "base"?, "root"?}'

const ContentWrite = z
  .object(
    {
      edits: edits.optional(),
      format: format.nullish(),
      content: z
        .unknown()
        .optional()
        .meta({ description: 'Markdown or text as a string, ProseMirror JSON as a {type: "doc"} node' }),
      base: z.unknown().optional().meta({ type: 'string', description: 'the base a read answered' }),
      root: rootName.nullish(),
      attributions: attributions.optional(),
      mode: z.enum(['apply', 'suggest'], { error: 'mode must be apply or suggest' }).optional(),
      override: z.boolean({ error: 'override must be true or false' }).optional(),
    },
    { error: `body must be a JSON object ${SHAPE}` },
  )
  .superRefine((o, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message })
    if (o.edits !== undefined) {
      if (o.content !== undefined) fail('send content (a whole document) or edits, not both')
      else if (o.format != null && o.format !== 'markdown')
        fail('edits change the Markdown view: format may only be markdown')
    } else if (o.format == null) fail(`format is required: one of ${FORMATS.join(', ')}`)
    else if (o.content === undefined) fail('content is required (or edits)')
    else if (
      o.format === 'prosemirror' ? typeof o.content !== 'object' || o.content === null : typeof o.content !== 'string'
    ) {
      fail(
        o.format === 'prosemirror'
          ? 'content must be a ProseMirror JSON document'
          : `content must be a string for format=${o.format}`,
      )
    }
  })
  .transform(({ edits: ops, ...o }) => ({
    change: changeOf(ops, o.format, o.content),
    root: o.root ?? null,
    /** the base token as sent (checked against the document when the write starts from it) */
    base: o.base ?? null,
    attributions: o.attributions,
    mode: o.mode ?? 'apply',
    override: o.override === true,
  }))
  .meta({ id: 'ContentWrite' })

export type WriteBody = z.output<typeof ContentWrite>

const ContentRead = z
  .looseObject({ format: z.string(), root: z.string(), content: z.unknown(), base: z.string() })
  .meta({
    id: 'ContentRead',
    description: 'a whole read; a part read (view=) answers its part, `truncated` and `next`',
  })
const ContentWritten = z
  .looseObject({
    applied: z.boolean(),
    inserted: z.int(),
    deleted: z.int(),
    base: z.string().optional(),
    root: z.string().optional(),
    suggestion: z.unknown().optional(),
    hunks: z.array(z.string()).optional(),
  })
  .meta({ id: 'ContentWritten' })

export const CONTENT_ROUTES = declareRoutes({
  stream: {
    POST: {
      summary:
        'Stream Markdown into the document: start at an address, then /{stream} takes each chunk and /{stream}/end shows the rest',
      access: 'rw',
      // an agent's stream under an approval mode grows a suggestion (streams.ts)
      agentsHeld: true,
      id: 'optional',
      actions: ['end'],
      query: StreamQuery,
      body: {
        json: StreamCall,
        optional: true,
        media:
          'send application/json {"after" | "before" | "at"} or {"text"}, or the whole stream as text/markdown or application/x-ndjson',
        // the whole stream in one request: its text as it arrives, the start in the query
        pieces: { media: STREAM_BODY_MEDIA, limit: 16 * 1024 * 1024 },
      },
      answers: {
        200: {
          description:
            'the chunk (or the end) is shown as far as it is settled: durable and sent; for a one-request stream, all of it',
          json: StreamState,
        },
        201: { description: 'the stream is open', json: StreamState },
      },
      errors: { 409: 'the blocks the stream writes in changed under it, or the address is gone' },
    },
    DELETE: {
      summary: 'Cancel a stream: what it showed stays, or with atomic goes in one update',
      access: 'rw',
      agentsHeld: true,
      id: 'required',
      answers: { 200: { description: 'cancelled', json: StreamState } },
    },
  },
  presence: {
    POST: {
      summary: 'Show the agent where it is looking: its caret over a block, a heading or a quote, without editing',
      access: 'r',
      body: { json: PresenceShow, media: 'send application/json {"at"?, "quote"?, "root"?}' },
      answers: { 200: { description: 'shown to everyone in the document', json: PresenceShown } },
      errors: { 409: 'no block has that id, heading or quote now' },
    },
    DELETE: {
      summary: 'The agent is done here: its name and caret leave the document at once',
      access: 'r',
      answers: { 204: { description: 'gone (or it was not there)' } },
    },
  },
  content: {
    GET: {
      summary: 'The document as Markdown, ProseMirror JSON or text with its base, or one part of it (view=)',
      access: 'r',
      query: ContentQuery,
      answers: { 200: { description: 'the content and the base it was read at', json: ContentRead } },
      errors: { 422: 'a root that is not an XML fragment or text, or a document nested too deep' },
    },
    PATCH: {
      summary:
        'Write content or targeted edits as the smallest change from `base`; held as a suggestion where the agents’ policy says',
      access: 'rw',
      jsonDepth: PM_JSON_DEPTH,
      agentsHeld: true,
      body: { json: ContentWrite, media: `send application/json ${SHAPE}` },
      answers: {
        200: { description: 'applied (durable, broadcast) with the new base', json: ContentWritten },
        202: { description: 'held as a suggestion', json: ContentWritten },
      },
      errors: {
        409: 'a targeted edit found no match or several, or a base too old',
        422: 'attributions past their limits, or content nested too deep',
      },
    },
  },
})
