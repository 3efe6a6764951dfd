// GET /content/v1/{org}/{doc_id} (r): the document as Markdown, ProseMirror JSON or text, with the
// `base` it was read at. PATCH (rw): content in one of those formats becomes the smallest Yjs
// change from the document at `base` (now, when absent) to it, applied through the room like any
// update: durable before the answer, broadcast, attributed. Made from the state the agent read,
// the change merges with everything written since instead of erasing it.
import { attributionProblem, mergeAttributions, normalizeAttributions } from '../auth/attributions.js'
import type { AgentPolicy } from '../agents/approval.js'
import { holds } from '../agents/policy.js'
import type { RestContext, RestRequest, RestResponse, RestRoutes } from '../collab/rest.js'
import { AppError } from '../infra/errors.js'
import { docIdOf, type Attributes } from '../storage/doc-store.js'
import type { ContentRead, ContentWritten } from './answers.js'
import { advance, MAX_OWN, type Base } from './base.js'
import { baseSealOf } from './base-token.js'
import { PM_JSON_DEPTH } from './depth.js'
import { baseState, current, type OpenHistory } from './state.js'
import { runContentJobOffLoop } from './doc-content.js'
import { FORMATS, type Format } from './formats.js'
import { isPartRead } from './parts-params.js'
import { partsReader } from './parts-route.js'

function formatOf(value: unknown, fallback: Format | null): Format {
  if (value === undefined || value === null) {
    if (fallback) return fallback
    throw new AppError('bad_request', `format is required: one of ${FORMATS.join(', ')}`)
  }
  if (typeof value !== 'string' || !(FORMATS as readonly string[]).includes(value)) throw new AppError('bad_request', `format must be one of ${FORMATS.join(', ')}`)
  return value as Format
}

function rootOf(value: unknown): string | null {
  if (value === undefined || value === null) return null
  if (typeof value !== 'string' || value === '' || value.length > 200) throw new AppError('bad_request', 'root must be the name of a root type (1-200 characters)')
  return value
}

/** What the server composes in: suggestions (src/suggestions/) and the agents' policy (src/agents/). */
export interface ContentHooks {
  /** makes a suggestion of the same body instead of applying it (the suggestions route's POST) */
  suggest(req: RestRequest, ctx: RestContext): Promise<RestResponse>
  /** whether a write is held as a suggestion: asked for, or an agent's under the workspace's approval mode */
  agents: Pick<AgentPolicy, 'holds'>
}

interface WriteBody {
  format: Format
  content: unknown
  root: string | null
  /** the base token as sent (checked against the document when the write starts from it) */
  base: unknown
  attributions: Attributes | undefined
  mode: 'apply' | 'suggest'
  override: boolean
}

function writeBody(req: RestRequest): WriteBody {
  if (!req.contentType.startsWith('application/json')) throw new AppError('unsupported_media_type', 'send application/json {"format", "content", "base"?, "root"?}')
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder().decode(req.body ?? new Uint8Array()))
  } catch {
    throw new AppError('bad_request', 'body is not valid JSON')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new AppError('bad_request', 'body must be a JSON object {"format", "content", "base"?, "root"?}')
  const o = parsed as Record<string, unknown>
  const format = formatOf(o.format, null)
  if (o.content === undefined) throw new AppError('bad_request', 'content is required')
  if (format === 'prosemirror' ? typeof o.content !== 'object' || o.content === null : typeof o.content !== 'string') {
    throw new AppError('bad_request', format === 'prosemirror' ? 'content must be a ProseMirror JSON document' : `content must be a string for format=${format}`)
  }
  let attributions: Attributes | undefined
  if (o.attributions !== undefined) {
    const problem = attributionProblem(o.attributions)
    if (problem) throw new AppError('validation', problem)
    attributions = normalizeAttributions(o.attributions as Record<string, string>)
  }
  if (o.mode !== undefined && o.mode !== 'apply' && o.mode !== 'suggest') throw new AppError('bad_request', 'mode must be apply or suggest')
  if (o.override !== undefined && typeof o.override !== 'boolean') throw new AppError('bad_request', 'override must be true or false')
  return {
    format,
    content: o.content,
    root: rootOf(o.root),
    base: o.base ?? null,
    attributions,
    mode: o.mode === 'suggest' ? 'suggest' : 'apply',
    override: o.override === true,
  }
}

export const contentRoutes = (open: OpenHistory, hooks?: ContentHooks, readPart = partsReader(open)): RestRoutes => ({
  content: {
    GET: {
      access: 'r',
      async handle(req, ctx) {
        if (isPartRead(req.query)) return readPart(req, ctx) // view=outline|section|range|find (parts-route.ts)
        const format = formatOf(req.query.get('format') ?? undefined, 'markdown')
        const root = rootOf(req.query.get('root') ?? undefined)
        const seal = await baseSealOf(ctx.store, docIdOf(req.org, req.doc, req.cap.branch))
        const { state, seq } = await current(req, ctx)
        const read = await ctx.registry.docBuilds.bounded(state.length, () => runContentJobOffLoop({ kind: 'read', state, format, root }), state.length)
        const json: ContentRead = { format, root: read.root, content: read.content as ContentRead['content'], base: seal.seal({ seq, own: [] }) }
        return { status: 200, json }
      },
    },
    PATCH: {
      access: 'rw',
      body: true,
      jsonDepth: PM_JSON_DEPTH,
      agentsHeld: true,
      async handle(req, ctx) {
        const body = writeBody(req)
        const attrs = mergeAttributions(mergeAttributions(req.cap.attr, body.attributions), body.override ? { override: 'true' } : undefined)
        const problem = body.attributions && attrs ? attributionProblem(attrs) : null // the merge may pass the key limit
        if (problem) throw new AppError('validation', `token and body attributions together: ${problem}`)
        const ask = { suggest: body.mode === 'suggest', override: body.override }
        // without the policy composed in (the route alone), only `"mode": "suggest"` holds
        if (hooks ? await hooks.agents.holds(req.cap, req.org, ask) : holds(null, false, ask)) {
          if (!hooks) throw new AppError('not_implemented', 'suggestions are not served here')
          const held = await hooks.suggest({ ...req, id: null, action: null }, ctx)
          if (held.status !== 201) return held
          const made = held.json as { suggestion: unknown; hunks: string[] }
          // nothing applied: the agent's base is what it was (the suggestion checked it)
          const json: ContentWritten = { applied: false, inserted: 0, deleted: 0, ...(typeof body.base === 'string' ? { base: body.base } : {}), suggestion: made.suggestion, hunks: made.hunks }
          return { status: 202, json }
        }
        const ref = { org: req.org, doc: req.doc, branch: req.cap.branch }
        const from = await baseState(req, ctx, open, body.base)
        if ('refused' in from) return from.refused
        const { state, seal, now } = from
        let base: Base = from.base
        if (base.own.length >= MAX_OWN) throw new AppError('conflict', 'read the document again: this base carries too many of your own writes')
        const input = { format: body.format, content: body.content, root: body.root }
        const size = state.length + (now?.length ?? 0)
        const edit = await ctx.registry.docBuilds.bounded(size, () => runContentJobOffLoop({ kind: 'edit', state, input, ...(now ? { now } : {}) }), size)
        if (edit.update) {
          let seq: number | null
          try {
            seq = await ctx.storageHealth.untilDurable(ctx.registry.docs.applyUpdate(ref, edit.update, req.cap.sub, attrs))
          } catch (err) {
            if (err instanceof AppError && err.code === 'malformed_message') throw new AppError('bad_request', err.message)
            throw err
          }
          base = advance(base, seq)
        }
        const json: ContentWritten = { applied: edit.update !== null, inserted: edit.inserted, deleted: edit.deleted, base: seal.seal(base), root: edit.root }
        return { status: 200, json }
      },
    },
  },
})
