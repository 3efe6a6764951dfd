// GET /content/v1/{org}/{doc}?view=outline|section|range|find: a part of a document's Markdown
// view, every answer at most --max-read-chars characters with a `next` cursor past that, and the
// `base` it was read at (the same sealed base a whole read gives; a cursor keeps reading that base).
import type { RestContext, RestRequest, RestResponse } from '../collab/rest/route-model.js'
import { AppError } from '../infra/errors.js'
import type { FindRead, OutlineRead, PartRead, SectionRead } from '@tandem/api/content'
import { docIdOf } from '../storage/doc-store.js'
import { baseSealOf } from './base-token.js'
import { runContentJobOffLoop } from './doc-content.js'
import { encodeCursor, type Cursor } from './parts-cursor.js'
import { find } from './parts-find.js'
import { sliceOf, withLines, type Lined } from './parts-lines.js'
import { DEFAULT_FIND_LIMIT, parsePartQuery, type PartQuery } from './parts-params.js'
import { PartsCache } from './parts-cache.js'
import { select, window, type Span } from './parts-select.js'
import { blocksIn, fitDetail, outlineEntries, page, takeEntries } from './parts-views.js'
import { baseState, seqNow, type OpenHistory } from './state.js'
import type { WarmClient } from './warm-client.js'

/**
 * An outline answers at most this many characters, whatever --max-read-chars allows (a 1 MB document's outline in 20
 * KB).
 */
const OUTLINE_MAX_CHARS = 20_000
/** What an outline's fields other than its entries take at most (base, note, counts). */
const OUTLINE_HEAD_CHARS = 1_000

/** What an outline's entries may take of an answer of `budget` characters. */
const outlineBudget = (budget: number) => {
  const whole = Math.min(budget, OUTLINE_MAX_CHARS)
  return whole - Math.min(OUTLINE_HEAD_CHARS, Math.floor(whole / 4))
}

/** The outline detail chosen per view, scope and budget: measuring every entry is most of an outline's time. */
const details = new WeakMap<Lined, Map<string, number>>()

function detailOf(m: Lined, scope: Span[] | null, budget: number): number {
  let known = details.get(m)
  if (!known) details.set(m, (known = new Map()))
  const key = `${budget} ${JSON.stringify(scope)}`
  let d = known.get(key)
  if (d === undefined) {
    if (known.size >= 64) known.clear()
    d = fitDetail(m, blocksIn(m, scope), budget)
    known.set(key, d)
  }
  return d
}

export interface At {
  view: Lined
  base: string
}

/** The Markdown views of one server, per base: what part reads answer from and targeted edits locate in. */
export class PartViews {
  private readonly cache = new PartsCache()

  constructor(
    private readonly open: OpenHistory,
    private readonly warm: WarmClient,
  ) {}

  private keyOf(req: RestRequest, base: string, root: string | null): string {
    return `${docIdOf(req.org, req.doc, req.cap.branch)}\n${base}\n${root ?? ''}`
  }

  /** The view at `token` (now when null): from the cache, or built from the state (off the loop when large). */
  async at(req: RestRequest, ctx: RestContext, token: string | null, root: string | null): Promise<At | RestResponse> {
    const docId = docIdOf(req.org, req.doc, req.cap.branch)
    let state: Uint8Array
    let base: string
    if (token === null) {
      const seal = await baseSealOf(ctx.store, docId)
      // The seq first: a view already built for it needs no encoding of the document.
      const known = seal.seal({ seq: await seqNow(req, ctx), own: [] })
      const hit = this.cache.get(this.keyOf(req, known, root))
      if (hit) return { view: hit, base: known }
      const { answer, seq } = await this.warm.run(req, ctx, { kind: 'parts', root })
      base = seal.seal({ seq, own: [] })
      const view = withLines(answer)
      this.cache.set(this.keyOf(req, base, root), view)
      return { view, base }
    } else {
      // A base this server gave out and still holds the view of (only sealed bases are keys).
      const hit = this.cache.get(this.keyOf(req, token, root))
      if (hit) return { view: hit, base: token }
      const seal = await baseSealOf(ctx.store, docId)
      const given = seal.open(token)
      // the base is the document now: its warm copy has the view
      if (given.own.length === 0 && given.seq === (await seqNow(req, ctx))) {
        const { answer, seq } = await this.warm.run(req, ctx, { kind: 'parts', root })
        if (seq === given.seq) {
          const view = withLines(answer)
          this.cache.set(this.keyOf(req, token, root), view)
          return { view, base: token }
        }
      }
      const from = await baseState(req, ctx, this.open, token)
      if ('refused' in from) return from.refused
      base = from.seal.seal(from.base)
      state = from.state
    }
    let view = this.cache.get(this.keyOf(req, base, root))
    if (!view) {
      const model = await ctx.registry.docBuilds.bounded(
        state.length,
        () => runContentJobOffLoop({ kind: 'parts', state, root }),
        state.length,
      )
      view = withLines(model)
      this.cache.set(this.keyOf(req, base, root), view)
    }
    return { view, base }
  }

  /** Keeps a view a write computed (the document as the write left it), for the reads and edits from its base. */
  keep(req: RestRequest, base: string, root: string | null, view: Lined): void {
    this.cache.set(this.keyOf(req, base, root), view)
  }
}

/** Serves part reads for one server from its views. */
export function partsReader(views: PartViews): (req: RestRequest, ctx: RestContext) => Promise<RestResponse> {
  return async (req, ctx) => {
    const parsed = parsePartQuery(req.query)
    const budget = ctx.config.maxReadChars
    const root = 'cursor' in parsed ? parsed.cursor.r : parsed.query.root
    const token = 'cursor' in parsed ? parsed.cursor.b : parsed.query.base
    const at = await views.at(req, ctx, token, root)
    if (!('view' in at)) return at
    const json = await ('cursor' in parsed ? continued(at, parsed.cursor, budget) : first(at, parsed.query, budget))
    return { status: 200, json }
  }
}

const head = (at: At) => ({ base: at.base, root: at.view.root, lines: at.view.lines })

function first(at: At, q: PartQuery, budget: number): PartRead | Promise<PartRead> {
  const m = at.view
  const spans = select(m, q.selection)
  const scope = q.selection.by === 'all' ? null : spans
  switch (q.view) {
    case 'section':
    case 'range': {
      const lines = window(spans, q.offset, q.limit)
      const chars = lines.map(([a, z]) => sliceOf(m, a, z))
      return pageAnswer(at, q.view, chars, budget)
    }
    case 'outline': {
      const detail = detailOf(m, scope, outlineBudget(budget))
      return outlineAnswer(
        at,
        { v: 'outline', b: at.base, r: q.root, s: scope, d: detail, at: q.offset, n: q.limit },
        budget,
      )
    }
    case 'find':
      return findAnswer(
        at,
        {
          v: 'find',
          b: at.base,
          r: q.root,
          s: scope,
          q: q.find!.query,
          x: q.find!.regex,
          i: q.find!.ignoreCase,
          k: q.find!.context,
          at: q.offset,
          n: q.limit ?? DEFAULT_FIND_LIMIT,
        },
        budget,
      )
  }
}

function continued(at: At, c: Cursor, budget: number): PartRead | Promise<PartRead> {
  // A cursor comes back from the client: its spans must lie in the view of its base.
  const inside = (spans: readonly Span[] | null, min: number, max: number) =>
    (spans ?? []).every(([a, z]) => a >= min && a <= z && z <= max)
  const fits = 'c' in c ? inside(c.c, 0, at.view.markdown.length) : inside(c.s, 1, at.view.lines)
  if (!fits)
    throw new AppError(
      'bad_request',
      'cursor: not a cursor this route gave out (send `next` from the answer as it was)',
    )
  if (c.v === 'outline') return outlineAnswer(at, c, budget)
  if (c.v === 'find') return findAnswer(at, c, budget)
  return pageAnswer(at, c.v, c.c, budget)
}

function pageAnswer(at: At, view: 'section' | 'range', chars: Span[], budget: number): SectionRead {
  const p = page(at.view, chars, budget)
  const text = p.parts.length === 1 ? p.parts[0]! : p.parts.length === 0 ? { line: 0, end: 0, content: '' } : null
  const next: Cursor | null = p.rest.length ? { v: view, b: at.base, r: at.view.root, c: p.rest } : null
  return {
    view,
    ...head(at),
    ...(text ?? { parts: p.parts }),
    blocks: p.blocks,
    truncated: next !== null,
    ...(next ? { next: encodeCursor(next) } : {}),
  }
}

function outlineAnswer(at: At, c: Extract<Cursor, { v: 'outline' }>, budget: number): OutlineRead {
  const m = at.view
  const blocks = blocksIn(m, c.s)
  const all = outlineEntries(m, blocks, c.d)
  const wanted = c.n === null ? all.length : Math.min(all.length, c.at + c.n)
  const { taken, next } = takeEntries(all.slice(0, wanted), c.at, outlineBudget(budget))
  const more = next < wanted
  const grouped = c.d > 0
  return {
    view: 'outline',
    ...head(at),
    chars: m.markdown.length,
    block_count: blocks.length,
    detail: grouped ? 'headings' : 'blocks',
    ...(grouped
      ? {
          heading_levels: c.d,
          note: `every block would not fit in ${OUTLINE_MAX_CHARS} characters: headings to level ${c.d} are listed, the blocks between them as ranges (kind "blocks", id..last); outline one with blocks=ID..LAST or read it with view=section&blocks=ID..LAST`,
        }
      : {}),
    entries: taken,
    truncated: more,
    ...(more ? { next: encodeCursor({ ...c, at: next, n: c.n === null ? null : wanted - next }) } : {}),
  }
}

async function findAnswer(at: At, c: Extract<Cursor, { v: 'find' }>, budget: number): Promise<FindRead> {
  const { matches, next } = await find(
    at.view,
    { query: c.q, regex: c.x, ignoreCase: c.i, context: c.k },
    c.s,
    c.at,
    c.n,
    budget,
  )
  return {
    view: 'find',
    ...head(at),
    query: c.q,
    matches,
    truncated: next !== null,
    ...(next !== null ? { next: encodeCursor({ ...c, at: next }) } : {}),
  }
}
