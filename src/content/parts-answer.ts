// The answer of a part read, computed where the view is (the warm content worker): a page of a
// section or range, an outline or the matches of a find, at most `budget` characters with a
// `next` cursor past that. Only the answer crosses back to the server, never the view.
import { AppError } from '../infra/errors.js'
import type { FindRead, OutlineRead, PartRead, SectionRead } from '@tandem/api/content'
import { encodeCursor, type Cursor } from './parts-cursor.js'
import { find } from './parts-find.js'
import { lengthOf, sliceOf, type Lined } from './parts-lines.js'
import { DEFAULT_FIND_LIMIT, type PartQuery } from './parts-params.js'
import { select, window, type Span } from './parts-select.js'
import { blocksIn, fitDetail, outlineEntries, page, takeEntries } from './parts-views.js'

/** A view and the base token it is the view of. */
export interface At {
  view: Lined
  base: string
}

/** What a part read asks: a query, or the cursor of an earlier answer. */
export type PartAsk = { query: PartQuery } | { cursor: Cursor }

/** The answer to `ask` from the view `at`. */
export function answerPart(at: At, ask: PartAsk, budget: number): PartRead {
  return 'cursor' in ask ? continued(at, ask.cursor, budget) : first(at, ask.query, budget)
}

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

const head = (at: At) => ({ base: at.base, root: at.view.root, lines: at.view.lines })

function first(at: At, q: PartQuery, budget: number): PartRead {
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

function continued(at: At, c: Cursor, budget: number): PartRead {
  // A cursor comes back from the client: its spans must lie in the view of its base.
  const inside = (spans: readonly Span[] | null, min: number, max: number) =>
    (spans ?? []).every(([a, z]) => a >= min && a <= z && z <= max)
  const fits = 'c' in c ? inside(c.c, 0, lengthOf(at.view)) : inside(c.s, 1, at.view.lines)
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
    chars: lengthOf(m),
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

function findAnswer(at: At, c: Extract<Cursor, { v: 'find' }>, budget: number): FindRead {
  const { matches, next } = find(
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
