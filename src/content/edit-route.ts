// PATCH /content/v1/{org}/{doc} with `edits`: targeted edits of a live document. The edits are
// located in the Markdown view of the base the agent read (the same view its part reads came
// from, usually still cached), then applied to the document as it is now (edit-apply.ts), so what
// others wrote meanwhile stays. Durable before the answer, attributed and broadcast like every
// write, or held as a suggestion under the approval mode. The answer is the new base and each
// changed region as it now reads, so the agent need not read again.
import type { RestContext, RestRequest, RestResponse } from '../collab/rest/route-model.js'
import type { Attributes } from '../storage/doc-store.js'
import type { ContentWritten } from '@tandem/api/content'
import { advance, formatBase, type Base } from './base.js'
import type { EditOp } from './edit-ops.js'
import { onView } from './parts-route.js'
import { commit } from './commit.js'
import type { OpenHistory } from './state.js'
import type { StreamStep } from './stream-step.js'
import type { WarmClient } from './warm-client.js'

/** Lines shown around each changed region in the answer. */
const CONTEXT_LINES = 2

export interface TargetedWrite {
  ops: EditOp[]
  /** a stream's step instead of edits (streams.ts) */
  step?: StreamStep
  base: string | null
  root: string | null
  attrs: Attributes | undefined
  /** hold the change as a suggestion instead of applying it (asked for, or the approval mode) */
  hold: ((update: Uint8Array, base: string) => Promise<RestResponse>) | null
}

/**
 * Applies (or holds) targeted edits. The warm worker locates them in the view of the base and
 * applies them to its copy of the document now; the view after the edit stays there, named by the
 * base this answers, for the agent's next read or edit.
 */
export async function writeTargeted(
  req: RestRequest,
  ctx: RestContext,
  warm: WarmClient,
  open: OpenHistory,
  w: TargetedWrite,
): Promise<RestResponse> {
  const ran = await onView(req, ctx, warm, open, w.base, (at) => ({
    kind: 'targeted',
    at,
    root: w.root,
    ops: w.ops,
    context: CONTEXT_LINES,
    ...(w.step ? { step: w.step } : {}),
  }))
  if (!('call' in ran)) return ran
  const { call, at, seal } = ran
  const done = call.answer
  if ('refused' in done) {
    call.release()
    return { status: done.refused.status, json: { ...done.refused.json, base: at.base } }
  }
  const nowBase: Base = { seq: call.seq, own: [] }
  let base: Base = nowBase
  try {
    if (done.update && w.hold) {
      call.release(false) // the copy holds a change the document will not: built again next time
      return await w.hold(done.update, seal.seal(nowBase))
    }
    if (done.update) base = advance(nowBase, await commit(req, ctx, done.update, w.attrs))
  } catch (err) {
    call.release(false)
    throw err
  }
  // The answer's base names exactly the state the view after the edit shows: the document the edit saw, plus it.
  call.release(true, { form: formatBase(base), root: w.root })
  const json: ContentWritten = {
    applied: done.update !== null,
    inserted: done.inserted,
    deleted: done.deleted,
    base: seal.seal(base),
    root: done.root,
    changes: done.changes,
    // a stream's step: the anchor's Markdown it wrote beside (the stream keeps the first)
    ...('lead' in done && done.lead !== undefined ? { lead: done.lead } : {}),
  }
  return { status: 200, json }
}
