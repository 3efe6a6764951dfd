// Reviewing a suggestion, what its routes share: the stored record with its claim, the view of a
// record, a suggestion's hunks and the change that applies some of them.
import type { RestContext, RestRequest } from '../collab/rest/route-model.js'
import { parseBase } from '../content/base.js'
import { runContentJobOffLoop } from '../content/doc-content.js'
import type { Format } from '../content/formats.js'
import { pmToMarkdown } from '../content/markdown-out.js'
import type { PmNode } from '../content/pm-json.js'
import { stateAt, type OpenHistory } from '../content/state.js'
import { AppError } from '../infra/errors.js'
import { docIdOf } from '../storage/doc-store.js'
import { hunksOf, withHunks, type Hunks } from './hunks.js'
import type { SuggestionStatus, SuggestionView } from '@tandem/api/suggestions'
import type { SuggestionRecord } from './record.js'
import type { SuggestionStore } from './store.js'

export type Decision = Pick<
  SuggestionRecord,
  'status' | 'accepted_hunks' | 'rejected_hunks' | 'decided_by' | 'decided_at_ms'
>

interface Claim {
  /** the log's head when the claim was taken: the accept's update lands after it */
  head: number
  at: number
  /** what the record becomes once the update is durable */
  decision: Decision
}
export type Stored = SuggestionRecord & { claim?: Claim }

export const docIdOfReq = (req: RestRequest) => docIdOf(req.org, req.doc, req.cap.branch)

export function view(r: Stored): SuggestionView {
  const { claim: _claim, rev: _rev, applied: _applied, ...out } = r
  return out
}

export function render(blocks: PmNode[], format: Format): unknown {
  const doc: PmNode = { type: 'doc', content: blocks }
  if (format === 'prosemirror') return blocks
  if (format === 'markdown') return pmToMarkdown(doc)
  return blocks.map(blockText)
}

/** The blocks' text, one line each (what a hunk's word changes read when the format is not Markdown). */
export const plainText = (blocks: PmNode[]): string => blocks.map(blockText).join('\n')

function blockText(n: PmNode): string {
  return n.text ?? (n.content ?? []).map(blockText).join('')
}

/** The document at the suggestion's base and its hunks (null: the change is to no XML root). */
export async function hunksAt(
  store: SuggestionStore,
  r: Stored,
  docId: string,
  ctx: RestContext,
  open: OpenHistory,
): Promise<{ baseState: Uint8Array; update: Uint8Array; hunks: Hunks | null }> {
  const update = await store.update(docId, r.id)
  if (!update) throw new AppError('not_found', 'no such suggestion')
  const baseState = await stateAt(parseBase(r.base), docId, ctx, open)
  return { baseState, update, hunks: hunksOf(baseState, update, r.root) }
}

/** The change that applies the hunks `take` admits on top of what this suggestion already applied. */
export async function changeFor(
  store: SuggestionStore,
  r: Stored,
  docId: string,
  ctx: RestContext,
  open: OpenHistory,
  take: (id: string) => boolean,
): Promise<Uint8Array | null> {
  const { update, hunks } = await hunksAt(store, r, docId, ctx, open)
  if (!hunks) return update // not an XML root: whole only, exactly as made
  if (r.accepted_hunks.length === 0 && r.rejected_hunks.length === 0 && hunks.hunks.every((h) => take(h.id)))
    return update
  const applied = await stateAt(parseBase(r.applied), docId, ctx, open)
  const target = withHunks(hunks, take)
  const edit = await ctx.registry.docBuilds.bounded(
    applied.length,
    () =>
      runContentJobOffLoop({
        kind: 'edit',
        state: applied,
        input: { format: 'prosemirror', content: target, root: hunks.root },
      }),
    applied.length,
  )
  return edit.update
}

export function statusAfter(
  r: Stored,
  all: string[],
  wholeAccept: boolean,
  wholeReject: boolean,
  byAuthor: boolean,
): SuggestionStatus {
  if (wholeReject && byAuthor) return 'withdrawn'
  const remaining = all.filter((id) => !r.accepted_hunks.includes(id) && !r.rejected_hunks.includes(id))
  if (!wholeAccept && !wholeReject && remaining.length > 0) return 'open'
  if (r.accepted_hunks.length === 0 && !wholeAccept) return 'rejected'
  if (r.rejected_hunks.length === 0 && (wholeAccept || remaining.length === 0)) return 'accepted'
  return 'partially_accepted'
}
