// A suggestion its author still writes: a stream under the approval mode (content/streams.ts)
// grows one suggestion, each step replacing its update and base with the stream's text so far,
// so a reviewer's preview grows with it. Only an open suggestion nobody has decided a hunk of, and
// only by its author: once a person decides any of it, the stream's next step is refused.
import type { RestContext, RestRequest } from '../collab/rest/route-model.js'
import { formatBase } from '../content/base.js'
import { baseSealOf } from '../content/base-token.js'
import { stateAt, type OpenHistory } from '../content/state.js'
import { AppError } from '../infra/errors.js'
import type { SuggestionView } from '@tandem/api/suggestions'
import { hunksOf } from './hunks.js'
import { docIdOfReq, view, type Stored } from './review.js'
import type { SuggestionStore } from './store.js'

export async function reviseSuggestion(
  store: SuggestionStore,
  open: OpenHistory,
  req: RestRequest,
  ctx: RestContext,
  id: string,
  change: { update: Uint8Array; base: string },
): Promise<{ suggestion: SuggestionView; hunks: string[] }> {
  const docId = docIdOfReq(req)
  const r = (await store.get(docId, id)) as Stored | null
  if (!r || r.by !== req.cap.sub) throw new AppError('not_found', 'no such suggestion of yours')
  if (r.status !== 'open' || r.claim || r.accepted_hunks.length > 0 || r.rejected_hunks.length > 0)
    throw new AppError('conflict', `the suggestion was ${r.status === 'open' ? 'decided in part' : r.status} meanwhile`)
  const base = (await baseSealOf(ctx.store, docId)).open(change.base)
  const hunks = hunksOf(await stateAt(base, docId, ctx, open), change.update, r.root)
  if (hunks && hunks.hunks.length === 0) throw new AppError('validation', 'the suggestion would change nothing')
  const next: Stored = { ...r, base: formatBase(base), applied: formatBase(base), rev: r.rev + 1 }
  if (!(await store.revise(docId, next, change.update)))
    throw new AppError('conflict', 'the suggestion was decided meanwhile')
  return { suggestion: view(next), hunks: hunks?.hunks.map((h) => h.id) ?? [] }
}
