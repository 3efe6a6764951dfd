// GET /activity/v1, GET /changeset/v1 (r) and POST /rollback/v1 (rw) for `{org}/{doc_id}`.
// Each call first waits for the live room's queued updates to be durable, so the history it reads
// holds every change the caller could have seen.
import type { RestContext, RestRequest, RestRoutes } from '../collab/rest.js'
import { AppError } from '../infra/errors.js'
import { docIdOf } from '../storage/doc-store.js'
import { activity } from './activity.js'
import { changeset } from './changeset.js'
import { documentAt } from './document-at.js'
import { entryDelta } from './entry-delta.js'
import { whoKey } from './who.js'
import { attrParam, boolParam, intParam, limitParam, orderParam, rollbackSpec, usersParam, windowParams } from './query.js'
import { rollback, wantAt, wantVersion, wantWithout, withVersionContent } from './rollback.js'
import type { HistoryService } from './service.js'
import type { DocHistory } from './timeline.js'

/** The server's history service, built on the first history request. */
type OpenHistory = () => Promise<HistoryService>

async function target(req: RestRequest, ctx: RestContext, open: OpenHistory) {
  const ref = { org: req.org, doc: req.doc, branch: req.cap.branch }
  const docId = docIdOf(ref.org, ref.doc, ref.branch)
  await ctx.registry.loaded(docId)?.flushed()
  return { ref, docId, history: await open() }
}

/** How far back the history reaches, and whether a request starting at `from` asked for more. */
function retained(h: DocHistory, from: number) {
  return { retainedFrom: h.base.at, truncated: h.base.seq > 0 && from <= h.base.at }
}

function notBeforeBase(h: DocHistory, time: number): void {
  if (h.base.seq > 0 && time < h.base.at) {
    throw new AppError('bad_request', `history before ${h.base.at} is past the retention window and was compacted`)
  }
}

export const historyRoutes = (open: OpenHistory): RestRoutes => ({
  activity: {
    GET: {
      access: 'r',
      async handle(req, ctx) {
        const q = req.query
        const { from, to } = windowParams(q, ctx.now())
        const query = {
          from,
          to,
          by: usersParam(q),
          attr: attrParam(q),
          limit: limitParam(q, ctx.config.historyMaxLimit),
          order: orderParam(q),
          group: boolParam(q, 'group', true),
          groupMaxGap: intParam(q, 'groupMaxGap') ?? 1000,
        }
        const withDelta = boolParam(q, 'delta', false)
        const { docId, history } = await target(req, ctx, open)
        return history.use(docId, (h) => {
          const { groups, more } = activity(h.index, query)
          const entries = groups.map((g) => ({
            from: g.from,
            to: g.to,
            by: g.by,
            ...(g.attributes ? { attributes: g.attributes } : {}),
            inserted: g.inserted,
            deleted: g.deleted,
            ...(withDelta ? { delta: entryDelta(h, g.entries) } : {}),
          }))
          return { status: 200, json: { entries, more, ...retained(h, from) } }
        })
      },
    },
  },
  changeset: {
    GET: {
      access: 'r',
      async handle(req, ctx) {
        const q = req.query
        const { from, to } = windowParams(q, ctx.now())
        const by = usersParam(q)
        const attr = attrParam(q)
        const withDoc = boolParam(q, 'ydoc', false)
        const withDelta = boolParam(q, 'delta', true)
        const { docId, history } = await target(req, ctx, open)
        return history.use(docId, (h) => {
          notBeforeBase(h, to)
          const cs = changeset(h, { from, to, by, attr })
          const json: Record<string, unknown> = { from, to, inserted: cs.inserted, deleted: cs.deleted, by: cs.by, ...retained(h, from) }
          if (withDelta) json.roots = cs.roots
          if (withDoc) json.ydoc = Buffer.from(documentAt(h, to)).toString('base64')
          return { status: 200, json }
        })
      },
    },
  },
  rollback: {
    POST: {
      access: 'rw',
      body: true,
      async handle(req, ctx) {
        const spec = rollbackSpec(req.body)
        const { ref, docId, history } = await target(req, ctx, open)
        const version = spec.kind === 'version' ? await ctx.versionState(docId, spec.version) : null
        if (spec.kind === 'version' && !version) throw new AppError('not_found', 'no such version')
        const versionSeq = version?.seq
        // Computed and applied in the document's queue: a second rollback arriving meanwhile sees
        // the first one's change in the log instead of restoring the same content twice.
        // The same rollback again with nothing changed since (a double click) is a no-op: restored
        // content is new content, so an undo of a window would otherwise restore it a second time.
        const key = JSON.stringify(spec.kind === 'window' ? { ...spec, by: spec.by && [...spec.by].sort(), attr: spec.attr && [...spec.attr].sort() } : spec)
        // the rollback's own update is attributed like any other the token sends
        const who = whoKey(req.cap.sub, req.cap.attr)
        const result = await history.use(docId, async (h) => {
          if (spec.kind !== 'version') notBeforeBase(h, spec.kind === 'to' ? spec.to : spec.from)
          const last = h.lastRollback
          if (last && last.key === key && h.quietSince(last.seq, last.who)) return { update: null, removed: 0, restored: 0, reformatted: 0 }
          const want = spec.kind === 'to' ? wantAt(spec.to) : spec.kind === 'version' ? wantVersion(version!.state) : wantWithout(spec.from, spec.to, spec.by, spec.attr)
          // A version older than the retained history may hold content retention has collected.
          const source = spec.kind === 'version' && h.base.seq > 0 && versionSeq! < h.base.seq ? withVersionContent(h, version!.state) : null
          let r
          try {
            r = rollback(source ?? h, want)
          } finally {
            source?.destroy()
          }
          if (r.update) {
            h.lastRollback = { key, seq: h.lastSeq, who }
            await ctx.storageHealth.untilDurable(ctx.registry.applyUpdate(ref, r.update, req.cap.sub, req.cap.attr))
          }
          return r
        })
        return { status: 200, json: { applied: result.update !== null, removed: result.removed, restored: result.restored, reformatted: result.reformatted } }
      },
    },
  },
})
