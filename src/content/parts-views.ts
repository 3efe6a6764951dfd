// The answers of a part read, each bounded: a page of a section or range (cut at a line boundary,
// mid-line only when one line is larger than a page) and the outline (every block when it fits,
// else the headings down to the deepest level that fits with the blocks between them as ranges).
import type { BlockRef, ContentPiece, OutlineBlock, OutlineEntry } from '@tandem/api/content'
import type { BlockInfo } from './parts-model.js'
import { blockAt, charsOf, lineAt, sliceText, type Lined } from './parts-lines.js'
import type { Span } from './parts-select.js'

const ref = (b: BlockInfo): BlockRef => ({ id: b.id, kind: b.kind, line: b.line, end: b.end })

export interface Page {
  parts: ContentPiece[]
  /** the blocks the page's lines belong to */
  blocks: BlockRef[]
  /** character spans still to read: the next page's (empty when this page ends the read) */
  rest: Span[]
}

/** Up to `budget` characters (content and block entries) of the character spans `spans`. */
export function page(m: Lined, spans: readonly Span[], budget: number): Page {
  const parts: ContentPiece[] = []
  const blocks: BlockRef[] = []
  let used = 0
  for (let si = 0; si < spans.length; si++) {
    const [from, to] = spans[si]!
    let cut = from
    while (cut < to) {
      const line = lineAt(m, cut)
      const next = Math.min(m.starts[line]!, to)
      const b = blockAt(m, line)
      const fresh = b && blocks[blocks.length - 1]?.id !== b.id ? b : null
      const meta = fresh ? JSON.stringify(ref(fresh)).length : 0
      if (used + next - cut + meta > budget) break
      used += next - cut + meta
      if (fresh) blocks.push(ref(fresh))
      cut = next
    }
    if (cut === from && used === 0 && from < to) cut = forcedCut(m, from, to, budget, blocks)
    if (cut > from) parts.push({ line: lineAt(m, from), end: lineAt(m, cut - 1), content: sliceText(m, from, cut) })
    if (cut < to) return { parts, blocks, rest: [[cut, to], ...spans.slice(si + 1)] }
  }
  return { parts, blocks, rest: [] }
}

/** One line longer than a page: cut inside it, never between the two halves of a surrogate pair. */
function forcedCut(m: Lined, from: number, to: number, budget: number, blocks: BlockRef[]): number {
  const b = blockAt(m, lineAt(m, from))
  if (b) blocks.push(ref(b))
  let cut = Math.min(to, from + Math.max(1, budget - (b ? JSON.stringify(ref(b)).length : 0)))
  const code = sliceText(m, cut - 1, cut).charCodeAt(0)
  if (cut < to && code >= 0xd800 && code <= 0xdbff && cut - 1 > from) cut--
  return cut
}

/** Built field by field, as JSON prints it: a conditional spread costs microseconds a block (warm-view.ts). */
function entryOf(m: Lined, b: BlockInfo): OutlineBlock {
  const e = { id: b.id, kind: b.kind } as OutlineBlock
  if (b.level) e.level = b.level
  e.text = b.text
  e.line = b.line
  e.end = b.end
  e.chars = charsOf(m, b.line, b.end)
  return e
}

/** The blocks whose lines meet `scope` (all of them when null). */
export function blocksIn(m: Lined, scope: readonly Span[] | null): BlockInfo[] {
  if (!scope) return m.blocks
  return m.blocks.filter((b) => scope.some(([a, z]) => b.line <= z && b.end >= a))
}

/** The entry standing for the blocks `first` to `last` between two headings of an outline. */
function rangeEntry(m: Lined, first: BlockInfo, last: BlockInfo, count: number): OutlineEntry {
  return {
    kind: 'blocks',
    id: first.id,
    last: last.id,
    count,
    line: first.line,
    end: last.end,
    chars: charsOf(m, first.line, last.end),
  }
}

/** The outline's entries at a detail: 0 lists every block, 1-6 the headings to that level with ranges between. */
export function outlineEntries(m: Lined, blocks: readonly BlockInfo[], detail: number): OutlineEntry[] {
  if (detail === 0) return blocks.map((b) => entryOf(m, b))
  const out: OutlineEntry[] = []
  let run: BlockInfo[] = []
  const flush = () => {
    if (!run.length) return
    out.push(rangeEntry(m, run[0]!, run[run.length - 1]!, run.length))
    run = []
  }
  for (const b of blocks) {
    if (b.kind === 'heading' && b.level! <= detail) {
      flush()
      out.push(entryOf(m, b))
    } else run.push(b)
  }
  flush()
  return out
}

/**
 * The JSON characters of `outlineEntries(m, blocks, detail)` (detail 1-6) as a list, from each
 * block's own entry size (`sizes`): only the ranges between headings are printed here. Stops
 * counting past `budget`.
 */
export function outlineSize(
  m: Lined,
  blocks: readonly BlockInfo[],
  sizes: readonly number[],
  detail: number,
  budget = Infinity,
): number {
  let n = 2
  let first = -1
  const flush = (end: number) => {
    if (first < 0) return
    n += JSON.stringify(rangeEntry(m, blocks[first]!, blocks[end - 1]!, end - first)).length + 1
    first = -1
  }
  for (let i = 0; i < blocks.length && n <= budget; i++) {
    const b = blocks[i]!
    if (b.kind === 'heading' && b.level! <= detail) {
      flush(i)
      n += sizes[i]!
    } else if (first < 0) first = i
  }
  flush(blocks.length)
  return n
}

/**
 * The finest detail whose entries fit `budget` characters of JSON: every block (0), else the
 * headings down to the deepest level that fits; when even the shallowest heading level the part
 * has does not fit, that level (its answer then pages with `next`). Each block's entry is printed
 * once, and each level prints only its ranges: measuring was most of an outline's time.
 */
export function fitDetail(m: Lined, blocks: readonly BlockInfo[], budget: number): number {
  const sizes = blocks.map((b) => JSON.stringify(entryOf(m, b)).length + 1)
  if (sizes.reduce((n, s) => n + s, 2) <= budget) return 0
  const levels = [...new Set(blocks.flatMap((b) => (b.kind === 'heading' ? [b.level!] : [])))].sort((a, b) => b - a)
  for (const level of levels) {
    if (outlineSize(m, blocks, sizes, level, budget) <= budget) return level
  }
  return levels[levels.length - 1] ?? 0
}

/** Entries from `at` up to `budget` characters of JSON (at least one); the index after the last. */
export function takeEntries(
  entries: readonly OutlineEntry[],
  at: number,
  budget: number,
): { taken: OutlineEntry[]; next: number } {
  const taken: OutlineEntry[] = []
  let used = 2
  let i = at
  for (; i < entries.length; i++) {
    const size = JSON.stringify(entries[i]).length + 1
    if (taken.length && used + size > budget) break
    used += size
    taken.push(entries[i]!)
  }
  return { taken, next: i }
}
