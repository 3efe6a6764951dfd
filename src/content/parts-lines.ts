// Lines of a Markdown view: where each starts, which block holds a line, and a block's size, so a
// part is always cut from the whole text at line boundaries that a whole read shares.
import type { BlockInfo, PartsModel } from './parts-model.js'

/** A model with its line starts: starts[i] is the offset of line i+1; the last entry is the text's length. */
export interface Lined extends PartsModel {
  starts: number[]
  /** lines of the view (a text ending in a newline has no line after it) */
  lines: number
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
  let lo = 0
  let hi = m.starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (m.starts[mid]! <= at) lo = mid
    else hi = mid - 1
  }
  return Math.min(lo + 1, m.lines)
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
  m.starts[end]! - m.starts[line - 1]! - (m.markdown[m.starts[end]! - 1] === '\n' ? 1 : 0)

/** Characters from the start of `line` to the end of `end`, newline included: the slice a part answers. */
export const sliceOf = (m: Lined, line: number, end: number): [number, number] => [m.starts[line - 1]!, m.starts[end]!]
