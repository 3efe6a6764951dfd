// Which lines of the Markdown view a part read names: a heading's section (the heading to the next
// heading of its level or higher), blocks by id (a list, or `first..last`), or a line range. Every
// selection is a list of line spans, sorted and apart; a name that matches nothing is 404, a
// malformed one 400 naming its parameter.
import { AppError } from '../infra/errors.js'
import { isBlockId } from './block-id.js'
import type { BlockInfo } from './parts-model.js'
import type { Lined } from './parts-lines.js'

export type Span = [number, number]

export type Selection =
  | { by: 'heading'; heading: string }
  | { by: 'blocks'; ids: string[]; range: boolean }
  | { by: 'lines'; from: number; to: number | null }
  | { by: 'all' }

export const MAX_BLOCK_IDS = 100

function blockById(m: Lined, id: string, param: string): [BlockInfo, number] {
  if (!isBlockId(id))
    throw new AppError(
      'bad_request',
      `${param}: ${JSON.stringify(id.slice(0, 40))} is not a block id (b-<client>-<clock>, as the outline gives them)`,
    )
  const i = m.blocks.findIndex((b) => b.id === id)
  if (i < 0)
    throw new AppError(
      'not_found',
      `${param}: no block ${id} in the Markdown view of this document at this base (deleted, replaced, or an empty paragraph)`,
    )
  return [m.blocks[i]!, i]
}

/** The heading a `heading=` names: a block id, or heading text (exact, then ignoring case and outer space). */
function headingOf(m: Lined, heading: string, param = 'heading'): [BlockInfo, number] {
  if (isBlockId(heading)) {
    const [b, i] = blockById(m, heading, param)
    if (b.kind !== 'heading')
      throw new AppError(
        'bad_request',
        `${param}: block ${heading} is a ${b.kind}, not a heading: read it with blocks=${heading}`,
      )
    return [b, i]
  }
  const want = heading.trim().toLowerCase()
  let found = m.blocks.flatMap((b, i): [BlockInfo, number][] =>
    b.kind === 'heading' && b.text === heading ? [[b, i]] : [],
  )
  if (!found.length)
    found = m.blocks.flatMap((b, i): [BlockInfo, number][] =>
      b.kind === 'heading' && b.text.trim().toLowerCase() === want ? [[b, i]] : [],
    )
  if (!found.length)
    throw new AppError(
      'not_found',
      `${param}: no heading reads ${JSON.stringify(heading.slice(0, 200))} (view=outline lists them)`,
    )
  if (found.length > 1) {
    const which = found
      .slice(0, 10)
      .map(([b]) => `${b.id} (line ${b.line})`)
      .join(', ')
    throw new AppError(
      'bad_request',
      `${param}: ${found.length} headings read ${JSON.stringify(heading.slice(0, 200))}: name one by its id: ${which}`,
    )
  }
  return found[0]!
}

/** The block an edit names (`param` in errors): a block id, or a heading's text. Its index in the view's blocks. */
export function addressed(m: Lined, address: string, param: string): number {
  return (isBlockId(address) ? blockById(m, address, param) : headingOf(m, address, param))[1]
}

/** The index of the last block of the section heading block `i` opens (to the next heading of its level or higher). */
export function sectionEnd(m: Lined, i: number): number {
  const h = m.blocks[i]!
  let last = i
  if (h.kind !== 'heading') return last
  while (
    last + 1 < m.blocks.length &&
    !(m.blocks[last + 1]!.kind === 'heading' && m.blocks[last + 1]!.level! <= h.level!)
  )
    last++
  return last
}

export function select(m: Lined, s: Selection): Span[] {
  if (m.lines === 0) return []
  switch (s.by) {
    case 'all':
      return [[1, m.lines]]
    case 'lines': {
      if (s.from > m.lines)
        throw new AppError('bad_request', `lines: the document's Markdown view has ${m.lines} lines`)
      return [[s.from, Math.min(s.to ?? m.lines, m.lines)]]
    }
    case 'heading': {
      const [h, i] = headingOf(m, s.heading)
      return [[h.line, m.blocks[sectionEnd(m, i)]!.end]]
    }
    case 'blocks': {
      const found = s.ids.map((id) => blockById(m, id, 'blocks'))
      if (s.range) {
        const [[a, ia], [b, ib]] = found as [[BlockInfo, number], [BlockInfo, number]]
        if (ib < ia)
          throw new AppError('bad_request', `blocks: ${b.id} comes before ${a.id} in the document (first..last)`)
        return [[a.line, b.end]]
      }
      return merge(found.map(([b]) => [b.line, b.end]))
    }
  }
}

/** Spans sorted, overlapping or touching ones joined. */
function merge(spans: Span[]): Span[] {
  const sorted = [...spans].sort((x, y) => x[0] - y[0])
  const out: Span[] = []
  for (const s of sorted) {
    const last = out[out.length - 1]
    if (last && s[0] <= last[1] + 1) last[1] = Math.max(last[1], s[1])
    else out.push([s[0], s[1]])
  }
  return out
}

/** The spans without their first `offset` lines and past `limit` lines. */
export function window(spans: Span[], offset: number, limit: number | null): Span[] {
  const out: Span[] = []
  let skip = offset
  let left = limit ?? Infinity
  for (const [a, b] of spans) {
    const n = b - a + 1
    if (skip >= n) {
      skip -= n
      continue
    }
    const from = a + skip
    skip = 0
    const to = Math.min(b, from + left - 1)
    if (to < from) break
    out.push([from, to])
    left -= to - from + 1
    if (left <= 0) break
  }
  return out
}
