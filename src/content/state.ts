// The document states a content call works from: the document now with the seq that names it, and
// the document exactly as a base names it (rebuilt from history, the agent's own updates on top).
import * as Y from 'yjs'
import type { RestContext, RestRequest, RestResponse } from '../collab/rest/route-model.js'
import type { HistoryService } from '../history/service.js'
import { AppError } from '../infra/errors.js'
import { docIdOf } from '../storage/doc-store.js'
import type { Base } from './base.js'
import { baseSealOf, type BaseSeal } from './base-token.js'

export type OpenHistory = () => Promise<HistoryService>

/**
 * The document now, and the seq that names it: the room's state once everything it accepted is
 * durable, plus (cluster mode) what other nodes committed that has not reached this room yet.
 */
export async function current(req: RestRequest, ctx: RestContext): Promise<{ state: Uint8Array; seq: number }> {
  const ref = { org: req.org, doc: req.doc, branch: req.cap.branch }
  const { room, release } = await ctx.registry.acquire(ref)
  let state: Uint8Array
  let seq: number
  try {
    await room.flushed()
    const reading = room.readState() // takes the state now
    seq = room.headSeq
    state = await reading
  } finally {
    release()
  }
  const missed: Uint8Array[] = []
  for await (const u of ctx.store.readLog(docIdOf(ref.org, ref.doc, ref.branch), seq + 1)) {
    missed.push(u.update)
    seq = u.seq
  }
  return { state: missed.length ? Y.mergeUpdates([state, ...missed]) : state, seq }
}

/** The seq naming the document now, as current() (state.ts) finds it, without encoding the document. */
export async function seqNow(req: RestRequest, ctx: RestContext): Promise<number> {
  const ref = { org: req.org, doc: req.doc, branch: req.cap.branch }
  const { room, release } = await ctx.registry.acquire(ref)
  let seq: number
  try {
    await room.flushed()
    seq = room.headSeq
  } finally {
    release()
  }
  for await (const u of ctx.store.readLog(docIdOf(ref.org, ref.doc, ref.branch), seq + 1)) seq = u.seq
  return seq
}

/** The 409 for a base history no longer reaches, naming the oldest one that still works (its seq). */
class BaseTooOld extends AppError {
  constructor(readonly oldest: number) {
    super('conflict', `base is older than the retained history (seq ${oldest} is the oldest it reaches)`)
  }
}

/** The document exactly as the base names it: rebuilt from history, the agent's own updates on top. */
export async function stateAt(base: Base, docId: string, ctx: RestContext, open: OpenHistory): Promise<Uint8Array> {
  const history = await open()
  const { answer } = await history.run(docId, (head) => {
    if (base.seq < head.base.seq) throw new BaseTooOld(head.base.seq)
    return { kind: 'state-at', seq: base.seq }
  })
  const own: Uint8Array[] = []
  for (const s of base.own) {
    let found: Uint8Array | null = null
    for await (const e of ctx.store.readLog(docId, s, s)) found = e.update
    if (!found) throw new BaseTooOld((await history.run(docId, () => ({ kind: 'none' }))).head.base.seq)
    own.push(found)
  }
  return own.length ? Y.mergeUpdates([answer, ...own]) : answer
}

/**
 * The state a write starts from: the document at the base the client sent (`token`; now when
 * absent), checked to be a base this document gave out and not newer than it; a base history no
 * longer reaches is the 409 that names the oldest valid one. `seal` issues the answer's base;
 * `now` is the document as it is when that differs from the base (others wrote since).
 */
export async function baseState(
  req: RestRequest,
  ctx: RestContext,
  open: OpenHistory,
  token: unknown,
): Promise<{ base: Base; state: Uint8Array; seal: BaseSeal; now?: Uint8Array } | { refused: RestResponse }> {
  const docId = docIdOf(req.org, req.doc, req.cap.branch)
  const seal = await baseSealOf(ctx.store, docId)
  const given = token === undefined || token === null ? null : seal.open(token)
  const now = await current(req, ctx)
  const base = given ?? { seq: now.seq, own: [] }
  if (base.seq > now.seq || base.own.some((s) => s > now.seq))
    throw new AppError('bad_request', 'base is not a base of this document')
  if (base.seq === now.seq && base.own.length === 0) return { base, state: now.state, seal }
  try {
    return { base, state: await stateAt(base, docId, ctx, open), seal, now: now.state }
  } catch (err) {
    if (!(err instanceof BaseTooOld)) throw err
    const oldest = seal.seal({ seq: err.oldest, own: [] })
    return {
      refused: {
        status: 409,
        json: {
          error: `base is older than the retained history: the oldest valid base is ${oldest}; read the document again`,
          code: 'conflict',
          oldest_base: oldest,
        },
      },
    }
  }
}
