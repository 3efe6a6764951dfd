// /suggestions/v1/{org}/{doc_id}: changes held for a person. POST (rw) makes one from a Yjs update
// or from content (Markdown, ProseMirror JSON, text) against a base; GET (r) lists them or shows one
// with its hunks and the document as it would read if accepted now; POST /{id}/accept and
// /{id}/reject (rw) decide, whole or hunk by hunk. An accept is one update through the room,
// attributed to the reviewer with `suggestion` and `suggested_by`, merged by the CRDT with
// everything written since the base. A suggestion's author cannot accept it (rejecting it is a
// withdrawal).
import { randomBytes } from 'node:crypto'
import * as Y from 'yjs'
import { attributionProblem, mergeAttributions, normalizeAttributions } from '../auth/attributions.js'
import type { RestContext, RestHandlers, RestInput, RestRequest, RestResponse } from '../collab/rest/route-model.js'
import { advance, formatBase, parseBase } from '../content/base.js'
import { baseSealOf } from '../content/base-token.js'
import { runContentJobOffLoop } from '../content/doc-content.js'
import type { Format } from '../content/format-names.js'
import { baseState, current, type OpenHistory } from '../content/state.js'
import { AppError } from '../infra/errors.js'
import { docIdOf, type Attributes } from '../storage/doc-store.js'
import { hunksOf, markedPreview } from './hunks.js'
import type { SuggestionShown } from '@tandem/api/suggestions'
import type { SuggestionRecord } from './record.js'
import {
  changeFor,
  docIdOfReq,
  hunksAt,
  plainText,
  render,
  statusAfter,
  view,
  type Decision,
  type Stored,
} from './review.js'
import { SUGGESTION_ROUTES, type SuggestionBody } from './rest-schema.js'
import type { SuggestionStore } from './store.js'
import { wordChanges } from './word-changes.js'

/** A claim (a decision being applied) older than this was left by a process that died. */
const CLAIM_STALE_MS = 60_000

/** Told of every suggestion made and every decision, once durable (the suggestion.* webhooks). */
export type SuggestionNotice = (
  req: RestRequest,
  type: 'suggestion.created' | 'suggestion.accepted' | 'suggestion.rejected',
  record: SuggestionRecord,
) => Promise<void>

type Post = typeof SUGGESTION_ROUTES.suggestions.POST
type Get = typeof SUGGESTION_ROUTES.suggestions.GET

/** The handlers of SUGGESTION_ROUTES (lazy-routes.ts binds them on the first suggestion request). */
export function suggestionHandlers(
  store: SuggestionStore,
  open: OpenHistory,
  notify: SuggestionNotice = async () => {},
): RestHandlers<typeof SUGGESTION_ROUTES> {
  /**
   * A branch's changes since it forked, as an update against main where it forked: the branch's
   * first log entry is its copy of main, its state vector names main's seq then (read off history).
   */
  async function fromBranch(
    req: RestRequest,
    ctx: RestContext,
    branch: string,
  ): Promise<{ update: Uint8Array; base: string } | RestResponse> {
    if (branch === req.cap.branch) throw new AppError('bad_request', 'branch must name another branch of this document')
    const entries: Uint8Array[] = []
    let fork: Uint8Array | null = null
    for await (const e of ctx.store.readLog(docIdOf(req.org, req.doc, branch))) {
      if (e.seq === 1) fork = e.update
      else entries.push(e.update)
    }
    if (!fork)
      throw new AppError(
        'not_found',
        `no branch ${JSON.stringify(branch)} of this document (or its history no longer reaches its fork)`,
      )
    if (entries.length === 0)
      throw new AppError('validation', `branch ${JSON.stringify(branch)} changed nothing since it forked`)
    const history = await open()
    const sv = Y.encodeStateVectorFromUpdate(fork)
    const { answer: seq } = await history.run(docIdOfReq(req), () => ({ kind: 'seq-of-sv', sv }))
    if (seq === null)
      return {
        status: 409,
        json: { error: `main's history no longer reaches where ${JSON.stringify(branch)} forked`, code: 'conflict' },
      }
    const update = entries.length === 1 ? entries[0]! : Y.mergeUpdates(entries)
    const seal = await baseSealOf(ctx.store, docIdOfReq(req))
    return { update, base: seal.seal({ seq, own: [] }) }
  }

  /** Makes a suggestion: `{update, base?}`, `{format, content, base?, root?}` or `{branch}`. */
  async function create(req: RestRequest, ctx: RestContext, o: SuggestionBody): Promise<RestResponse> {
    let given: { update?: Uint8Array; base?: unknown; attributions?: Attributes } = o
    if (o.branch !== undefined) {
      const made = await fromBranch(req, ctx, o.branch)
      if ('status' in made) return made
      const withBranch = { ...o.attributions, branch: o.branch }
      const problem = attributionProblem(withBranch) // the branch's own key may pass the key limit
      if (problem) throw new AppError('validation', problem)
      given = { ...made, attributions: normalizeAttributions(withBranch) }
    }
    const docId = docIdOfReq(req)
    const attrs = mergeAttributions(req.cap.attr, given.attributions)
    const open_ = (await store.list(docId)).filter((s) => s.status === 'open').length
    const max = ctx.config.maxOpenSuggestions
    if (open_ >= max)
      throw new AppError(
        'conflict',
        `a document holds at most ${max} open suggestions (--max-open-suggestions): decide one first`,
      )
    const from = await baseState(req, ctx, open, given.base)
    if ('refused' in from) return from.refused
    const { base, state: atBase, now } = from
    const root = o.root ?? null
    let update: Uint8Array | null
    if (given.update !== undefined) {
      update = given.update
      try {
        const probe = new Y.Doc()
        Y.applyUpdate(probe, atBase)
        Y.applyUpdate(probe, update)
        probe.destroy()
      } catch {
        throw new AppError('bad_request', 'update is not a Yjs update')
      }
    } else {
      // which fields a suggestion needs depends on the path (a decision takes none): checked here
      if (o.format === undefined)
        throw new AppError('bad_request', 'format must be one of markdown, prosemirror, text (or send "update")')
      if (o.content === undefined) throw new AppError('bad_request', 'content is required')
      const input = { format: o.format, content: o.content, root }
      // others' insertions since the base that the content repeats are left out, as in a content write
      const size = atBase.length + (now?.length ?? 0)
      update = (
        await ctx.registry.docBuilds.bounded(
          size,
          () => runContentJobOffLoop({ kind: 'edit', state: atBase, input, ...(now ? { now } : {}) }),
          size,
        )
      ).update
    }
    const hunks = update ? hunksOf(atBase, update, root) : null
    if (!update || (hunks && hunks.hunks.length === 0))
      throw new AppError('validation', 'the suggestion changes nothing in the document at its base')
    const record: Stored = {
      id: randomBytes(12).toString('base64url'),
      base: formatBase(base),
      applied: formatBase(base),
      root: hunks?.root ?? null,
      by: req.cap.sub,
      ...(attrs ? { attributions: attrs } : {}),
      created_at_ms: ctx.now(),
      status: 'open',
      accepted_hunks: [],
      rejected_hunks: [],
      rev: 0,
    }
    await store.create(docId, record, update)
    await notify(req, 'suggestion.created', record)
    return { status: 201, json: { suggestion: view(record), hunks: hunks?.hunks.map((h) => h.id) ?? [] } }
  }

  async function show(req: RestRequest, ctx: RestContext, { query }: RestInput<Get>): Promise<RestResponse> {
    const docId = docIdOfReq(req)
    if (req.id === null) {
      const all = await store.list(docId)
      return {
        status: 200,
        json: { suggestions: all.filter((s) => query.status === undefined || s.status === query.status).map(view) },
      }
    }
    const r = (await store.get(docId, req.id)) as Stored | null
    if (!r) throw new AppError('not_found', 'no such suggestion')
    const formatParam = query.format ?? 'markdown'
    const delta = formatParam === 'delta'
    const format: Format = delta ? 'prosemirror' : (formatParam as Format)
    const { hunks } = await hunksAt(store, r, docId, ctx, open)
    const hunkView = (hunks?.hunks ?? []).map((h) => {
      const before = render(h.before, format)
      const after = render(h.after, format)
      return {
        id: h.id,
        status: r.accepted_hunks.includes(h.id)
          ? ('accepted' as const)
          : r.rejected_hunks.includes(h.id)
            ? ('rejected' as const)
            : ('open' as const),
        before,
        after,
        // word by word, in Markdown when that is the format, else in the blocks' text
        words:
          format === 'markdown'
            ? wordChanges(before as string, after as string)
            : wordChanges(plainText(h.before), plainText(h.after)),
      }
    })
    // The document as it would read if every open hunk were accepted now.
    let preview: unknown = null
    if (r.status === 'open') {
      const change = await changeFor(store, r, docId, ctx, open, (id) => !r.rejected_hunks.includes(id))
      const now = await current(req, ctx)
      const state = change ? Y.mergeUpdates([now.state, change]) : now.state
      preview = delta
        ? markedPreview(now.state, state, r.root, r.by, hunks)
        : (await runContentJobOffLoop({ kind: 'read', state, format, root: r.root })).content
    }
    const json: SuggestionShown = { suggestion: view(r), format: delta ? 'delta' : format, hunks: hunkView, preview }
    return { status: 200, json }
  }

  async function decide(req: RestRequest, ctx: RestContext, o: SuggestionBody): Promise<RestResponse> {
    const docId = docIdOfReq(req)
    const ref = { org: req.org, doc: req.doc, branch: req.cap.branch }
    const asked = o.hunks
    let r = (await store.get(docId, req.id!)) as Stored | null
    if (!r) throw new AppError('not_found', 'no such suggestion')
    r = await settleClaim(r, docId, ctx)
    const accept = req.action === 'accept'
    const byAuthor = req.cap.sub === r.by
    if (accept && byAuthor) throw new AppError('forbidden', "a suggestion's author cannot accept it")
    if (req.agentHeld && !byAuthor)
      throw new AppError(
        'forbidden',
        "this workspace requires approval for agents' edits: an agent may withdraw its own suggestions, not decide others'",
      )
    if (r.status !== 'open')
      return {
        status: 409,
        json: { error: `the suggestion is already ${r.status}`, code: 'conflict', status: r.status },
      }
    if (r.claim)
      return {
        status: 409,
        json: { error: 'the suggestion is being decided right now', code: 'conflict', status: r.status },
      }
    const { hunks } = await hunksAt(store, r, docId, ctx, open)
    const all = hunks?.hunks.map((h) => h.id) ?? []
    if (asked) {
      if (!hunks)
        throw new AppError('validation', 'this suggestion is not to an XML fragment: accept or reject it whole')
      const unknown = asked.filter((id) => !all.includes(id))
      if (unknown.length) throw new AppError('validation', `not hunks of this suggestion: ${unknown.join(', ')}`)
      const clash = asked.filter((id) => (accept ? r!.rejected_hunks : r!.accepted_hunks).includes(id))
      if (clash.length)
        return {
          status: 409,
          json: {
            error: `hunks already ${accept ? 'rejected' : 'accepted'}: ${clash.join(', ')}`,
            code: 'conflict',
            status: r.status,
          },
        }
    }
    const undecided = all.filter((id) => !r!.accepted_hunks.includes(id) && !r!.rejected_hunks.includes(id))
    const chosen = asked ? asked.filter((id) => undecided.includes(id)) : undecided
    const next: Stored = {
      ...r,
      rev: r.rev + 1,
      accepted_hunks: [...r.accepted_hunks],
      rejected_hunks: [...r.rejected_hunks],
    }
    if (accept) next.accepted_hunks.push(...chosen)
    else next.rejected_hunks.push(...chosen)
    next.status = statusAfter(next, all, accept && !asked, !accept && !asked, byAuthor)
    if (next.status !== 'open') {
      next.decided_by = req.cap.sub
      next.decided_at_ms = ctx.now()
    }
    if (!accept || (asked && chosen.length === 0)) {
      if (!(await store.replace(docId, next))) return conflict(docId, r.id)
      await notify(req, accept ? 'suggestion.accepted' : 'suggestion.rejected', next)
      return { status: 200, json: { suggestion: view(next), applied: false } }
    }
    // Accept: claim the decision (one reviewer wins, on any node), apply one update, then record it.
    const taken = new Set(next.accepted_hunks)
    const change = await changeFor(store, r, docId, ctx, open, (id) => taken.has(id))
    const attrs = mergeAttributions(req.cap.attr, { suggestion: r.id, suggested_by: r.by.slice(0, 128) })
    const problem = attrs ? attributionProblem(attrs) : null
    if (problem) throw new AppError('validation', `token and suggestion attributions together: ${problem}`)
    const decision: Decision = {
      status: next.status,
      accepted_hunks: next.accepted_hunks,
      rejected_hunks: next.rejected_hunks,
      decided_by: next.decided_by,
      decided_at_ms: next.decided_at_ms,
    }
    const claimed: Stored = {
      ...r,
      rev: r.rev + 1,
      claim: { head: (await current(req, ctx)).seq, at: ctx.now(), decision },
    }
    if (!(await store.replace(docId, claimed))) return conflict(docId, r.id)
    let seq: number | null = null
    try {
      if (change)
        seq = await ctx.storageHealth.untilDurable(ctx.registry.docs.applyUpdate(ref, change, req.cap.sub, attrs))
    } catch (err) {
      await store.replace(docId, { ...r, rev: claimed.rev + 1 }) // the claim goes; nothing was applied
      throw err
    }
    const final: Stored = { ...next, rev: claimed.rev + 1, applied: formatBase(advance(parseBase(r.applied), seq)) }
    delete final.claim
    await store.replace(docId, final)
    await notify(req, 'suggestion.accepted', final)
    return { status: 200, json: { suggestion: view(final), applied: change !== null } }
  }

  async function conflict(docId: string, id: string): Promise<RestResponse> {
    const now = await store.get(docId, id)
    return {
      status: 409,
      json: {
        error: `the suggestion was decided meanwhile: ${now?.status ?? 'gone'}`,
        code: 'conflict',
        status: now?.status ?? null,
      },
    }
  }

  /**
   * A claim left by a process that died between its claim and its record: if its update is in the
   * log (attributed with this suggestion), the accept happened and is recorded now; else the claim
   * is dropped and the suggestion is open as before.
   */
  async function settleClaim(r: Stored, docId: string, ctx: RestContext): Promise<Stored> {
    if (!r.claim || ctx.now() - r.claim.at < CLAIM_STALE_MS) return r
    let landed: number | null = null
    for await (const e of ctx.store.readLog(docId, r.claim.head + 1)) if (e.attrs?.suggestion === r.id) landed = e.seq
    const next: Stored = { ...r, rev: r.rev + 1 }
    delete next.claim
    if (landed !== null) {
      Object.assign(next, r.claim.decision)
      next.applied = formatBase(advance(parseBase(r.applied), landed))
    }
    return (await store.replace(docId, next)) ? next : ((await store.get(docId, r.id)) as Stored)
  }

  return {
    suggestions: {
      GET: show,
      async POST(req, ctx, { body }: RestInput<Post>) {
        if (req.id === null) return create(req, ctx, body)
        if (req.action === null) throw new AppError('not_found', 'POST .../{id}/accept or .../{id}/reject')
        return decide(req, ctx, body)
      },
    },
  }
}
