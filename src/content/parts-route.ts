// GET /content/v1/{org}/{doc}?view=outline|section|range|find: a part of a document's Markdown
// view, every answer at most --max-read-chars characters with a `next` cursor past that, and the
// `base` it was read at (the same sealed base a whole read gives; a cursor keeps reading that base).
// The view and the answer are the warm content worker's (parts-answer.ts, view-shelf.ts); this side
// checks the base and, for a base the worker holds no view of, rebuilds its state from history.
import type { RestContext, RestRequest, RestResponse } from '../collab/rest/route-model.js'
import { docIdOf } from '../storage/doc-store.js'
import { formatBase } from './base.js'
import { baseSealOf, type BaseSeal } from './base-token.js'
import { parsePartQuery } from './parts-params.js'
import { baseState, type OpenHistory } from './state.js'
import type { WarmCall, WarmClient } from './warm-client.js'
import type { NeedsState, ViewAt, WarmAnswers, WarmJob } from './warm-jobs.js'

type ViewJob = Extract<WarmJob, { kind: 'part' | 'targeted' }>

/**
 * Runs a view job at `token` (a base this document gave out; now when null). The worker answers
 * from the view it holds of that base, or of the document now; for an older base it holds no view
 * of, the state at the base is rebuilt from history and sent along. A base history no longer
 * reaches is the 409 naming the oldest valid one.
 */
export async function onView<J extends ViewJob>(
  req: RestRequest,
  ctx: RestContext,
  warm: WarmClient,
  open: OpenHistory,
  token: string | null,
  job: (at: ViewAt) => J,
): Promise<{ call: WarmCall<Exclude<WarmAnswers[J['kind']], NeedsState>>; at: ViewAt; seal: BaseSeal } | RestResponse> {
  const seal = await baseSealOf(ctx.store, docIdOf(req.org, req.doc, req.cap.branch))
  const given = token === null ? null : seal.open(token) // 400 for a base this document did not give out
  let at: ViewAt | null = null
  const atSeq = (seq: number): ViewAt =>
    given === null
      ? { form: formatBase({ seq, own: [] }), base: seal.seal({ seq, own: [] }), now: true }
      : { form: formatBase(given), base: token!, now: given.own.length === 0 && given.seq === seq }
  let call = await warm.run(req, ctx, (seq) => job((at = atSeq(seq))))
  if ('needsState' in call.answer) {
    call.release()
    const from = await baseState(req, ctx, open, token)
    if ('refused' in from) return from.refused
    const built: ViewAt = { ...at!, now: false, state: from.state }
    at = built
    call = await ctx.registry.docBuilds.bounded(
      from.state.length,
      () => warm.run(req, ctx, job(built)),
      from.state.length,
    )
    if ('needsState' in call.answer) throw new Error('the warm content worker kept no view of a state it was sent')
  }
  return { call: call as WarmCall<Exclude<WarmAnswers[J['kind']], NeedsState>>, at: at!, seal }
}

/** Serves part reads from the views the warm worker keeps. */
export function partsReader(
  warm: WarmClient,
  open: OpenHistory,
): (req: RestRequest, ctx: RestContext) => Promise<RestResponse> {
  return async (req, ctx) => {
    const ask = parsePartQuery(req.query)
    const root = 'cursor' in ask ? ask.cursor.r : ask.query.root
    const token = 'cursor' in ask ? ask.cursor.b : ask.query.base
    const budget = ctx.config.maxReadChars
    const ran = await onView(req, ctx, warm, open, token, (at) => ({ kind: 'part', at, root, ask, budget }))
    if (!('call' in ran)) return ran
    return { status: 200, json: ran.call.answer }
  }
}
