// GET /content/v1/{org}/{doc_id} (r): the document as Markdown, ProseMirror JSON or text, with the
// `base` it was read at. PATCH (rw): content in one of those formats becomes the smallest Yjs
// change from the document at `base` (now, when absent) to it, applied through the room like any
// update: durable before the answer, broadcast, attributed. Made from the state the agent read,
// the change merges with everything written since instead of erasing it.
import { attributionProblem, mergeAttributions } from '../auth/attributions.js'
import type { AgentPolicy } from '../agents/approval.js'
import { holds, isAgent } from '../agents/policy.js'
import type { RestContext, RestHandlers, RestRequest, RestResponse } from '../collab/rest/route-model.js'
import { AppError } from '../infra/errors.js'
import { docIdOf } from '../storage/doc-store.js'
import type { ContentRead, ContentWritten, PresenceShown, StreamWhere } from '@tandem/api/content'
import type { SuggestionView } from '@tandem/api/suggestions'
import { agentWho, refOf, showAgent } from './presence.js'
import { advance, MAX_OWN, type Base } from './base.js'
import { baseSealOf } from './base-token.js'
import { baseState, seqNow, type OpenHistory } from './state.js'
import { runContentJobOffLoop } from './doc-content.js'
import { CONTENT_ROUTES, type StreamCallBody, type WriteBody } from './rest-schema.js'
import { isPartRead } from './parts-params.js'
import { partsReader } from './parts-route.js'
import { commit } from './commit.js'
import { WarmClient, type ColdJob, type ColdRun } from './warm-client.js'
import { computeEdit, readContent } from './formats.js'
import { writeTargeted } from './edit-route.js'
import { Streams, type StepWriter } from './streams.js'
import { bodyTexts } from './stream-body.js'

/** What the server composes in: suggestions (src/suggestions/) and the agents' policy (src/agents/). */
export interface ContentHooks {
  /** makes a suggestion of the same body instead of applying it (the suggestions route's POST) */
  suggest(req: RestRequest, ctx: RestContext): Promise<RestResponse>
  /** replaces the update and base of the caller's open suggestion `id` (a held stream growing it) */
  revise(
    req: RestRequest,
    ctx: RestContext,
    id: string,
    change: { update: Uint8Array; base: string },
  ): Promise<{ suggestion: SuggestionView; hunks: string[] }>
  /** the caller withdraws its suggestion `id` (a held stream cancelled with atomic) */
  withdraw(req: RestRequest, ctx: RestContext, id: string): Promise<RestResponse>
  /** whether a write is held as a suggestion: asked for, or an agent's under the workspace's approval mode */
  agents: Pick<AgentPolicy, 'holds'>
}

/** Where a stream's start says it writes: exactly one of after, before, at and replace. */
function whereOf(b: Pick<StreamCallBody, 'after' | 'before' | 'at' | 'replace' | 'text'>): StreamWhere {
  const given = (['after', 'before', 'at', 'replace'] as const).filter((k) => b[k] !== undefined)
  if (given.length !== 1 || b.text !== undefined)
    throw new AppError(
      'bad_request',
      'start a stream with one of after, before, at or replace (and no text: chunks go to /{stream})',
    )
  if (b.after !== undefined) return { after: b.after }
  if (b.before !== undefined) return { before: b.before }
  if (b.replace !== undefined) return { replace: b.replace }
  return { at: b.at! }
}

/**
 * A stream's step as a targeted write (edit-route.ts); a refusal is the chunk's answer. A held
 * stream's step makes its suggestion, or revises it, from the same change instead.
 */
const stepWriter =
  (warm: WarmClient, open: OpenHistory, hooks?: ContentHooks): StepWriter =>
  async (req, ctx, step, base, attrs, root, held) => {
    const hold = held
      ? async (update: Uint8Array, now: string): Promise<RestResponse> => {
          if (!hooks) throw new AppError('not_implemented', 'suggestions are not served here')
          const { stream } = attrs
          const made = held.suggestion
            ? { status: 200, json: await hooks.revise(req, ctx, held.suggestion, { update, base: now }) }
            : await hooks.suggest(heldRequest(req, update, now, { root, attributions: { stream: stream! } }), ctx)
          if (made.status !== 200 && made.status !== 201) return made
          await showAgent(req, ctx) // seen in the room, its caret where it was: nothing of it is written
          const { suggestion, hunks } = made.json as { suggestion: { id: string }; hunks: string[] }
          const json: ContentWritten = { applied: false, inserted: 0, deleted: 0, base, suggestion, hunks }
          return { status: 200, json }
        }
      : null
    const r = await writeTargeted(req, ctx, warm, open, { ops: [], step, base, root, attrs, hold })
    if (r.status !== 200) {
      const why = (r.json as { error?: string } | undefined)?.error ?? 'the stream could not be written'
      throw new AppError(r.status === 409 ? 'conflict' : 'bad_request', why)
    }
    return r.json as ContentWritten & { lead?: string }
  }

/** Presence is an agent's: a person is seen through their editor. */
const NOT_AN_AGENT = () =>
  new AppError('forbidden', "presence over REST is an agent's: a person appears through their editor's awareness")

/** The request a held targeted edit becomes: the suggestions route's `{update, base}` form. */
function heldRequest(
  req: RestRequest,
  update: Uint8Array,
  base: string,
  body: Pick<WriteBody, 'root' | 'attributions'>,
): RestRequest {
  const json = {
    update: Buffer.from(update).toString('base64'),
    base,
    ...(body.root ? { root: body.root } : {}),
    ...(body.attributions ? { attributions: body.attributions } : {}),
  }
  return { ...req, id: null, action: null, body: new TextEncoder().encode(JSON.stringify(json)) }
}

/** A job the warm worker would run, run here on a small document's state instead. */
const cold = ((job: ColdJob, state: Uint8Array) => {
  switch (job.kind) {
    case 'read':
      return readContent(state, job.format, job.root)
    case 'edit':
      return computeEdit(state, job.input)
  }
}) as ColdRun

/** The handlers of CONTENT_ROUTES (lazy-routes.ts binds them on the first content request). */
export const contentHandlers = (
  open: OpenHistory,
  hooks?: ContentHooks,
  warm = new WarmClient(cold),
  readPart = partsReader(warm, open),
  streams = new Streams(
    stepWriter(warm, open, hooks),
    (ctx) => ctx.config.agentPresenceTtl * 1000,
    async (req, ctx, id) => void (await hooks?.withdraw(req, ctx, id)),
  ),
): RestHandlers<typeof CONTENT_ROUTES> => ({
  stream: {
    async POST(req, ctx, { body, query }) {
      const b = body ?? {}
      if (req.id === null) {
        // the whole stream in this request's body (stream-body.ts): the start is in the query
        const from = req.pieces ? { ...query, atomic: query.atomic === 'true' } : b
        const where = whereOf(from)
        const root = from.root ?? null
        const { answer, seq } = await warm.run(req, ctx, { kind: 'anchor', root, where })
        const seal = await baseSealOf(ctx.store, docIdOf(req.org, req.doc, req.cap.branch))
        // held by the agents' approval mode: the stream grows a suggestion (streams.ts showHeld)
        const held = hooks ? await hooks.agents.holds(req.cap, req.org, { suggest: false, override: false }) : false
        const start = { where, atomic: from.atomic === true, root, held }
        const json = streams.start(req, ctx, start, { ...answer, base: seal.seal({ seq, own: [] }) })
        await showAgent(req, ctx) // in the room from the start, its caret where it was
        if (!req.pieces) return { status: 201, json }
        const poured = await streams.pour(req, ctx, json.stream, bodyTexts(req.pieces, req.contentType))
        return { status: 200, json: poured }
      }
      if (req.action === 'end') return { status: 200, json: await streams.end(req, ctx, req.id) }
      if (typeof b.text !== 'string') throw new AppError('bad_request', 'send the chunk as {"text": "..."}')
      return { status: 200, json: await streams.chunk(req, ctx, req.id, b.text) }
    },
    async DELETE(req, ctx) {
      return { status: 200, json: await streams.cancel(req, ctx, req.id!) }
    },
  },
  presence: {
    async POST(req, ctx, { body }) {
      if (!isAgent(req.cap)) throw NOT_AN_AGENT()
      const job = { kind: 'caret', root: body.root ?? null, at: body.at ?? null, quote: body.quote ?? null } as const
      const { answer } = await warm.run(req, ctx, job)
      await showAgent(req, ctx, answer.cursor)
      const json: PresenceShown = answer
      return { status: 200, json }
    },
    async DELETE(req, ctx) {
      if (!isAgent(req.cap)) throw NOT_AN_AGENT()
      await ctx.registry.agents.done(refOf(req), agentWho(req.cap))
      return { status: 204 }
    },
  },
  content: {
    async GET(req, ctx, { query }) {
      if (isPartRead(req.query)) return readPart(req, ctx) // view=outline|section|range|find (parts-route.ts)
      const format = query.format ?? 'markdown'
      const root = query.root ?? null
      const seal = await baseSealOf(ctx.store, docIdOf(req.org, req.doc, req.cap.branch))
      const { answer: read, seq } = await warm.run(req, ctx, { kind: 'read', format, root })
      const json: ContentRead = {
        format,
        root: read.root,
        content: read.content as ContentRead['content'],
        base: seal.seal({ seq, own: [] }),
      }
      return { status: 200, json }
    },
    async PATCH(req, ctx, { body }) {
      const attrs = mergeAttributions(
        mergeAttributions(req.cap.attr, body.attributions),
        body.override ? { override: 'true' } : undefined,
      )
      const problem = body.attributions && attrs ? attributionProblem(attrs) : null // the merge may pass the key limit
      if (problem) throw new AppError('validation', `token and body attributions together: ${problem}`)
      const ask = { suggest: body.mode === 'suggest', override: body.override }
      // without the policy composed in (the route alone), only `"mode": "suggest"` holds
      const held = hooks ? await hooks.agents.holds(req.cap, req.org, ask) : holds(null, false, ask)
      if (held && !hooks) throw new AppError('not_implemented', 'suggestions are not served here')
      /** the suggestion made of `made` (the request the suggestions route reads), answered as a write held */
      const hold = async (made: RestRequest): Promise<RestResponse> => {
        const r = await hooks!.suggest(made, ctx)
        if (r.status !== 201) return r
        await showAgent(req, ctx) // seen in the room, its caret where it was: nothing of it is written
        const { suggestion, hunks } = r.json as { suggestion: unknown; hunks: string[] }
        // nothing applied: the agent's base is what it was (the suggestion checked it)
        const json: ContentWritten = {
          applied: false,
          inserted: 0,
          deleted: 0,
          ...(typeof body.base === 'string' ? { base: body.base } : {}),
          suggestion,
          hunks,
        }
        return { status: 202, json }
      }
      if ('ops' in body.change) {
        const holdAs = held ? (update: Uint8Array, base: string) => hold(heldRequest(req, update, base, body)) : null
        return writeTargeted(req, ctx, warm, open, {
          ops: body.change.ops,
          base: body.base as string | null,
          root: body.root,
          attrs,
          hold: holdAs,
        })
      }
      if (held) return hold({ ...req, id: null, action: null })
      const input = { format: body.change.format, content: body.change.content, root: body.root }
      const seal = await baseSealOf(ctx.store, docIdOf(req.org, req.doc, req.cap.branch))
      const given = body.base === null ? null : seal.open(body.base)
      // From the document as it is (no base, or nobody wrote since): on its warm copy.
      if (!given || (given.own.length === 0 && given.seq === (await seqNow(req, ctx)))) {
        const call = await warm.run(req, ctx, { kind: 'edit', input })
        if (!given || call.seq === given.seq) {
          let seq: number | null = null
          try {
            if (call.answer.update) seq = await commit(req, ctx, call.answer.update, attrs)
          } catch (err) {
            call.release(false)
            throw err
          }
          call.release()
          const edit = call.answer
          const json: ContentWritten = {
            applied: edit.update !== null,
            inserted: edit.inserted,
            deleted: edit.deleted,
            base: seal.seal(advance({ seq: call.seq, own: [] }, seq)),
            root: edit.root,
          }
          return { status: 200, json }
        }
        call.release(false) // someone wrote in between: merge from the base instead
      }
      const from = await baseState(req, ctx, open, body.base)
      if ('refused' in from) return from.refused
      const { state, now } = from
      let base: Base = from.base
      if (base.own.length >= MAX_OWN)
        throw new AppError('conflict', 'read the document again: this base carries too many of your own writes')
      const size = state.length + (now?.length ?? 0)
      const edit = await ctx.registry.docBuilds.bounded(
        size,
        () => runContentJobOffLoop({ kind: 'edit', state, input, ...(now ? { now } : {}) }),
        size,
      )
      if (edit.update) base = advance(base, await commit(req, ctx, edit.update, attrs))
      const json: ContentWritten = {
        applied: edit.update !== null,
        inserted: edit.inserted,
        deleted: edit.deleted,
        base: seal.seal(base),
        root: edit.root,
      }
      return { status: 200, json }
    },
  },
})
