// PATCH /content/v1/{org}/{doc} with `edits`: targeted edits of a live document. The edits are
// located in the Markdown view of the base the agent read (the same view its part reads came
// from, usually still cached), then applied to the document as it is now (edit-apply.ts), so what
// others wrote meanwhile stays. Durable before the answer, attributed and broadcast like every
// write, or held as a suggestion under the approval mode. The answer is the new base and each
// changed region as it now reads, so the agent need not read again.
import type { RestContext, RestRequest, RestResponse } from '../collab/rest/route-model.js'
import { docIdOf, type Attributes } from '../storage/doc-store.js'
import type { ContentWritten } from '@tandem/api/content'
import { advance, type Base } from './base.js'
import { baseSealOf } from './base-token.js'
import { EditRefused, locate } from './edit-locate.js'
import type { EditOp } from './edit-ops.js'
import { withLines } from './parts-lines.js'
import type { PartViews } from './parts-route.js'
import { commit } from './commit.js'
import type { WarmClient } from './warm-client.js'

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
export async function writeTargeted(
  req: RestRequest,
  ctx: RestContext,
  views: PartViews,
  warm: WarmClient,
  w: TargetedWrite,
): Promise<RestResponse> {
  const at = await views.at(req, ctx, w.base, w.root)
  if (!('view' in at)) return at
  let runs
  try {
    runs = locate(at.view, w.ops)
  } catch (err) {
    if (err instanceof EditRefused) return { status: err.status, json: { ...err.json, base: at.base } }
    throw err
  }
  const input = { root: at.view.root, runs, context: CONTEXT_LINES }
  const call = await warm.run(req, ctx, { kind: 'targeted', input })
  const done = call.answer
  if ('refused' in done) {
    call.release()
    return { status: done.refused.status, json: { ...done.refused.json, base: at.base } }
  }
  const seal = await baseSealOf(ctx.store, docIdOf(req.org, req.doc, req.cap.branch))
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
  call.release()
  // The answer's base names exactly the state the model shows: the document the edit saw, plus it.
  const sealed = seal.seal(base)
  views.keep(req, sealed, w.root, withLines(done.model))
  const json: ContentWritten = {
    applied: done.update !== null,
    inserted: done.inserted,
    deleted: done.deleted,
    base: sealed,
    root: done.root,
    changes: done.changes,
  }
  return { status: 200, json }
}
