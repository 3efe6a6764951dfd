// GET /activity/v1, GET /changeset/v1 (r) and POST /rollback/v1 (rw) for `{org}/{doc_id}`.
// Each call first waits for the live room's queued updates to be durable, so the history it reads
// holds every change the caller could have seen.
import type { RestContext, RestHandlers, RestRequest } from '../collab/rest/route-model.js'
import { AppError } from '../infra/errors.js'
import { docIdOf } from '../storage/doc-store.js'
import { whoKey } from './who.js'
import { HISTORY_ROUTES } from './rest-schema.js'
import type { HistoryHead, HistoryService } from './service.js'
import type { RollbackTarget } from './task.js'

/** The server's history service, built on the first history request. */
type OpenHistory = () => Promise<HistoryService>

async function target(req: RestRequest, ctx: RestContext, open: OpenHistory) {
  const ref = { org: req.org, doc: req.doc, branch: req.cap.branch }
  const docId = docIdOf(ref.org, ref.doc, ref.branch)
  await ctx.registry.loaded(docId)?.flushed()
  return { ref, docId, history: await open() }
}

/** How far back the history reaches, and whether a request starting at `from` asked for more. */
function retained(h: HistoryHead, from: number) {
  return { retainedFrom: h.base.at, truncated: h.base.seq > 0 && from <= h.base.at }
}

/** from/to in ms, inclusive; defaults: from the beginning, to now. */
function windowOf(q: { from?: number; to?: number }, now: number): { from: number; to: number } {
  const from = q.from ?? 0
  const to = q.to ?? now
  if (from > to) throw new AppError('bad_request', `from (${from}) is after to (${to})`)
  return { from, to }
}

function notBeforeBase(h: HistoryHead, time: number): void {
  if (h.base.seq > 0 && time < h.base.at) {
    throw new AppError('bad_request', `history before ${h.base.at} is past the retention window and was compacted`)
  }
}

/** The handlers of HISTORY_ROUTES (lazy-routes.ts binds them on the first history request). */
export const historyHandlers = (open: OpenHistory): RestHandlers<typeof HISTORY_ROUTES> => ({
  activity: {
    async GET(req, ctx, { query: q }) {
      const { from, to } = windowOf(q, ctx.now())
      const query = {
        from,
        to,
        by: q.by ?? null,
        attr: q.attr ?? null,
        limit: Math.min(q.limit ?? 100, ctx.config.historyMaxLimit),
        order: q.order ?? 'desc',
        group: q.group ?? true,
        groupMaxGap: q.groupMaxGap ?? 1000,
      }
      const withDelta = q.delta ?? false
      const { docId, history } = await target(req, ctx, open)
      const { answer, head } = await history.run(docId, () => ({ kind: 'activity', query, delta: withDelta }))
      return { status: 200, json: { ...answer, ...retained(head, from) } }
    },
  },
  changeset: {
    async GET(req, ctx, { query: q }) {
      const { from, to } = windowOf(q, ctx.now())
      const by = q.by ?? null
      const attr = q.attr ?? null
      const withDoc = q.ydoc ?? false
      const withDelta = q.delta ?? true
      const { docId, history } = await target(req, ctx, open)
      const { answer, head } = await history.run(docId, (head) => {
        notBeforeBase(head, to)
        return { kind: 'changeset', window: { from, to, by, attr }, delta: withDelta, ydoc: withDoc }
      })
      const { ydoc, rootsJson, ...counts } = answer
      const json: Record<string, unknown> = { from, to, ...counts, ...retained(head, from) }
      if (ydoc) json.ydoc = Buffer.from(ydoc).toString('base64')
      if (rootsJson === undefined) return { status: 200, json }
      // the roots go in as the job serialised them, never parsed here
      return { status: 200, jsonText: `${JSON.stringify(json).slice(0, -1)},"roots":${rootsJson}}` }
    },
  },
  rollback: {
    async POST(req, ctx, { body: spec }) {
      const { ref, docId, history } = await target(req, ctx, open)
      const version = spec.kind === 'version' ? await ctx.versionState(docId, spec.version) : null
      if (spec.kind === 'version' && !version) throw new AppError('not_found', 'no such version')
      // Computed and applied in the document's queue: a second rollback arriving meanwhile sees
      // the first one's change in the log instead of restoring the same content twice.
      // The same rollback again with nothing changed since (a double click) is a no-op: restored
      // content is new content, so an undo of a window would otherwise restore it a second time.
      const key = JSON.stringify(
        spec.kind === 'window'
          ? { ...spec, by: spec.by && [...spec.by].sort(), attr: spec.attr && [...spec.attr].sort() }
          : spec,
      )
      // the rollback's own update is attributed like any other the token sends
      const who = whoKey(req.cap.sub, req.cap.attr)
      const want: RollbackTarget =
        spec.kind === 'version' ? { kind: 'version', seq: version!.seq, state: version!.state } : spec
      const plan = (head: HistoryHead) => {
        if (spec.kind !== 'version') notBeforeBase(head, spec.kind === 'to' ? spec.to : spec.from)
        const last = history.lastRollback(docId)
        return {
          kind: 'rollback' as const,
          target: want,
          unless: last && last.key === key ? { seq: last.seq, who: last.who } : null,
        }
      }
      const { answer: result } = await history.run(docId, plan, async (r, head) => {
        if (!r.update) return
        history.rememberRollback(docId, { key, seq: head.lastSeq, who })
        await ctx.storageHealth.untilDurable(ctx.registry.docs.applyUpdate(ref, r.update, req.cap.sub, req.cap.attr))
      })
      return {
        status: 200,
        json: {
          applied: result.update !== null,
          removed: result.removed,
          restored: result.restored,
          reformatted: result.reformatted,
        },
      }
    },
  },
})
