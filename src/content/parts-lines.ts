// Lines of a Markdown view: where each starts, which block holds a line, and a block's size, so a
// part is always cut from the whole text at line boundaries that a whole read shares. A view kept
// warm is its blocks' texts in a row (warm-view.ts): parts are cut from those pieces and the whole
// text is joined only when something reads it whole, since every new 1 MB string costs more here
// than the edit that made it (fresh pages for V8's large-object space: about 4 ms per MB).
import type { BlockInfo, PartsModel } from './parts-model.js'

/**
 * A view's text in pieces: piece i starts at offset at[i]; `joined` is the whole text once read.
 * Every seam between two pieces has a piece of newlines on one side (a block's text, then the
 * blank line after it), so only text holding a newline can run across a seam.
 */
interface Pieces {
  at: number[]
  texts: string[]
  joined: string | null
}

/** A model with its line starts: starts[i] is the offset of line i+1; the last entry is the text's length. */
export interface Lined extends PartsModel {
  starts: number[]
  /** lines of the view (a text ending in a newline has no line after it) */
  lines: number
  /** the text in pieces, when the view was assembled from them (`markdown` then joins them on first read) */
  pieces?: Pieces
}

/** A view whose `markdown` is its pieces, joined when first read. */
export function pieced(m: Omit<Lined, 'markdown' | 'pieces'>, texts: string[], at: number[]): Lined {
  const pieces: Pieces = { at, texts, joined: null }
  const view = { ...m } as Lined
  Object.defineProperty(view, 'markdown', { enumerable: true, get: () => (pieces.joined ??= texts.join('')) })
  Object.defineProperty(view, 'pieces', { enumerable: false, value: pieces })
  return view
}

/** The index of the last entry of `sorted` (ascending, `sorted[0] <= x`) that is at most `x`. */
function lastAtOrBefore(sorted: readonly number[], x: number): number {
  let lo = 0
  let hi = sorted.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (sorted[mid]! <= x) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** The length of the view's text. */
export const lengthOf = (m: Lined) => m.starts[m.starts.length - 1]!

/** Characters `from`..`to` of the view's text, cut from its pieces when it has not been joined. */
export function sliceText(m: Lined, from: number, to: number): string {
  const p = m.pieces
  if (!p || p.joined !== null) return m.markdown.slice(from, to)
  let out = ''
  for (let k = lastAtOrBefore(p.at, from); k < p.texts.length && p.at[k]! < to; k++) {
    const text = p.texts[k]!
    const a = Math.max(from - p.at[k]!, 0)
    const z = Math.min(to - p.at[k]!, text.length)
    if (z > a) out += a === 0 && z === text.length ? text : text.slice(a, z)
  }
  return out
}

/**
 * Start offsets of the non-overlapping occurrences of `s` in the view's text, at most `max` (one
 * past it tells there are more). Searched piece by piece, never joined: an occurrence across two
 * pieces is looked for in the few characters around their seam.
 */
export function occurrencesIn(m: Lined, s: string, max: number): number[] {
  const out: number[] = []
  const p = m.pieces
  if (!p || p.joined !== null) {
    const text = m.markdown
    for (let at = text.indexOf(s); at >= 0 && out.length < max; at = text.indexOf(s, at + s.length)) out.push(at)
    return out
  }
  const tail = s.length - 1
  const seams = s.includes('\n')
  /** the last `tail` characters before the piece being searched, and where they start */
  let carry = ''
  let carryAt = 0
  /** the first offset a next occurrence may start at (occurrences do not overlap) */
  let next = 0
  for (let k = 0; k < p.texts.length && out.length < max; k++) {
    const text = p.texts[k]!
    const at = p.at[k]!
    if (carry && seams) {
      // across the seam: starting in the carry (it cannot hold a whole occurrence), ending in this piece
      const seam = carry + text.slice(0, tail)
      for (
        let i = seam.indexOf(s, Math.max(0, next - carryAt));
        i >= 0 && i < carry.length;
        i = seam.indexOf(s, i + 1)
      ) {
        if (carryAt + i < next) continue
        out.push(carryAt + i)
        next = carryAt + i + s.length
        if (out.length === max) return out
      }
    }
    for (
      let i = text.indexOf(s, Math.max(0, next - at));
      i >= 0 && out.length < max;
      i = text.indexOf(s, i + s.length)
    ) {
      out.push(at + i)
      next = at + i + s.length
    }
    if (!seams) continue
    if (text.length >= tail) {
      carry = text.slice(text.length - tail)
      carryAt = at + text.length - tail
    } else {
      const joined = carry + text
      carry = joined.slice(Math.max(0, joined.length - tail))
      carryAt = at + text.length - carry.length
    }
  }
  return out
}

export function withLines(m: PartsModel | Lined): Lined {
  if ('starts' in m) return m // counted where it was made (a warm view)
  const starts = [0]
  for (let i = m.markdown.indexOf('\n'); i >= 0; i = m.markdown.indexOf('\n', i + 1)) starts.push(i + 1)
  const ends = m.markdown.endsWith('\n') || m.markdown === ''
  if (!ends) starts.push(m.markdown.length)
  return { ...m, starts, lines: starts.length - 1 }
}

/** The line (1-based) holding character `at`. */
export function lineAt(m: Lined, at: number): number {
  return Math.min(lastAtOrBefore(m.starts, at) + 1, m.lines)
}

/** The block printed on `line`, or null for a line between blocks. */
export function blockAt(m: Lined, line: number): BlockInfo | null {
  let lo = 0
  let hi = m.blocks.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const b = m.blocks[mid]!
    if (line < b.line) hi = mid - 1
    else if (line > b.end) lo = mid + 1
    else return b
  }
  return null
}

/** Characters of lines `line`..`end`, without the last newline. */
export const charsOf = (m: Lined, line: number, end: number) =>
  m.starts[end]! - m.starts[line - 1]! - (sliceText(m, m.starts[end]! - 1, m.starts[end]!) === '\n' ? 1 : 0)

/** Characters from the start of `line` to the end of `end`, newline included: the slice a part answers. */
export const sliceOf = (m: Lined, line: number, end: number): [number, number] => [m.starts[line - 1]!, m.starts[end]!]
