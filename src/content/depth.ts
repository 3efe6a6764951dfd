// The one bound on how deep a document's nodes nest, for every structured read and write
// (Markdown and ProseMirror JSON, REST and MCP alike). A top-level block is at depth 1; a bullet
// list level takes two (the list and its item), so a 10-level outline's last paragraph is at 21.
// The bound is far above anything an editor makes, and it is the same both ways: whatever a read
// returns can be written back, and past it a write is refused whole, never cut. It also bounds
// the recursion of every walk over the tree (parsing, printing, diffing), so no stack can overflow.
import { AppError } from '../infra/errors.js'

export const MAX_DEPTH = 256

/**
 * The JSON nesting a write body needs for a ProseMirror document MAX_DEPTH deep (a node and its
 * `content` array are two levels; the body, doc, a text node's marks and attribute values a few
 * more), so the content route takes it whatever --max-json-depth says.
 */
export const PM_JSON_DEPTH = 2 * MAX_DEPTH + 16

const LIMIT = `the limit is ${MAX_DEPTH} levels of nesting (a list level counts two: the list and its item)`

/** A write whose content nests deeper than MAX_DEPTH. */
export function contentTooDeep(where?: string): AppError {
  return new AppError(
    'too_deep',
    `${where ? where + ': ' : ''}content nests deeper than ${MAX_DEPTH} levels; ${LIMIT}, and nothing was written`,
  )
}

/** A document that already nests deeper than MAX_DEPTH: it is not read (or written) as structure, never cut. */
export function documentTooDeep(): AppError {
  return new AppError(
    'too_deep',
    `the document nests deeper than ${MAX_DEPTH} levels; ${LIMIT}: read it with format=text`,
  )
}
