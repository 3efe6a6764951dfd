// PATCH /content/v1/{org}/{doc} with `edits`: targeted edits of a live document. The edits are
// located in the Markdown view of the base the agent read (the same view its part reads came
// from, usually still cached), then applied to the document as it is now (edit-apply.ts), so what
// others wrote meanwhile stays. Durable before the answer, attributed and broadcast like every
// write, or held as a suggestion under the approval mode. The answer is the new base and each
// changed region as it now reads, so the agent need not read again.
import type { RestContext, RestRequest, RestResponse } from '../collab/rest.js'
import { AppError } from '../infra/errors.js'
import { docIdOf, type Attributes } from '../storage/doc-store.js'
import type { ContentWritten } from './answers.js'
import { advance, type Base } from './base.js'
import { baseSealOf } from './base-token.js'
import { runContentJobOffLoop } from './doc-content.js'
import type { TargetedResult } from './edit-apply.js'
import { EditRefused, locate } from './edit-locate.js'
import type { EditOp } from './edit-ops.js'
import { withLines } from './parts-lines.js'
import type { PartViews } from './parts-route.js'
import { current } from './state.js'

/** Lines shown around each changed region in the answer. */
const CONTEXT_LINES = 2

export interface TargetedWrite {
  ops: EditOp[]
  base: string | null
  root: string | null
  attrs: Attributes | undefined
  /** hold the change as a suggestion instead of applying it (asked for, or the approval mode) */
  hold: ((update: Uint8Array, base: string) => Promise<RestResponse>) | null
}

/** Applies (or holds) targeted edits; `views` is the server's cache of Markdown views. */
export async function writeTargeted(req: RestRequest, ctx: RestContext, views: PartViews, w: TargetedWrite): Promise<RestResponse> {
  const at = await views.at(req, ctx, w.base, w.root)
  if (!('view' in at)) return at
  let runs
  try {
    runs = locate(at.view, w.ops)
  } catch (err) {
    if (err instanceof EditRefused) return { status: err.status, json: { ...err.json, base: at.base } }
    throw err
  }
  const now = await current(req, ctx)
  const input = { root: at.view.root, runs, context: CONTEXT_LINES }
  const done: TargetedResult = await ctx.registry.docBuilds.bounded(now.state.length, () => runContentJobOffLoop({ kind: 'targeted', state: now.state, input }), now.state.length)
  if ('refused' in done) return { status: done.refused.status, json: { ...done.refused.json, base: at.base } }

  const seal = await baseSealOf(ctx.store, docIdOf(req.org, req.doc, req.cap.branch))
  const nowBase: Base = { seq: now.seq, own: [] }
  if (done.update && w.hold) return w.hold(done.update, seal.seal(nowBase))
  let base: Base = nowBase
  if (done.update) {
    const ref = { org: req.org, doc: req.doc, branch: req.cap.branch }
    let seq: number | null
    try {
      seq = await ctx.storageHealth.untilDurable(ctx.registry.docs.applyUpdate(ref, done.update, req.cap.sub, w.attrs))
    } catch (err) {
      if (err instanceof AppError && err.code === 'malformed_message') throw new AppError('bad_request', err.message)
      throw err
    }
    base = advance(nowBase, seq)
  }
  // The answer's base names exactly the state the model shows: the document the edit saw, plus it.
  const sealed = seal.seal(base)
  views.keep(req, sealed, w.root, withLines(done.model))
  const json: ContentWritten = { applied: done.update !== null, inserted: done.inserted, deleted: done.deleted, base: sealed, root: done.root, changes: done.changes }
  return { status: 200, json }
}
