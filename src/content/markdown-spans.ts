// The whole document's Markdown with the lines each top-level block prints on: the same printing
// as a whole-document read (markdown-out.ts), watched as it goes, so a part read is a slice of
// exactly the text a whole read answers and its line numbers are the whole read's.
import type * as M from 'mdast'
import type { Options } from 'mdast-util-to-markdown'
import { block, printMarkdown } from './markdown-out.js'
import type { PmNode } from './pm-json.js'

/** The first and last line (1-based, inclusive) a block prints on; null when it prints nothing. */
export type LineSpan = [number, number] | null

type Handle = (node: M.Nodes, parent: M.Parents | undefined, state: unknown, info: { now: { line: number } }) => string

/**
 * `nodes` (a document's top-level nodes) as Markdown, and per node the lines it takes. The root's
 * children are printed by mdast-util-to-markdown's containerFlow, which tells each child the line
 * it starts on; we record that and the lines the child printed.
 */
export function printWithSpans(nodes: readonly PmNode[]): { markdown: string; spans: LineSpan[] } {
  const children: M.BlockContent[] = []
  const owner = new Map<M.Nodes, number>()
  nodes.forEach((n, i) => {
    for (const b of block(n)) {
      owner.set(b, i)
      children.push(b)
    }
  })
  const spans: LineSpan[] = nodes.map(() => null)
  const root: NonNullable<Options['handlers']>['root'] = (node, _parent, state, info) => {
    const s = state as unknown as { handle: Handle; containerFlow(parent: M.Root, info: unknown): string }
    const inner = s.handle
    // zwitch's handle carries its handler table as properties, which the printer reads: kept.
    s.handle = Object.assign(
      (child: M.Nodes, parent: M.Parents | undefined, st: unknown, childInfo: { now: { line: number } }) => {
        const out = inner(child, parent, st, childInfo)
        const i = parent === node ? owner.get(child) : undefined
        if (i !== undefined) {
          const first = childInfo.now.line
          const last = first + countLines(out) - 1
          const had = spans[i]
          spans[i] = had ? [had[0], last] : [first, last]
        }
        return out
      },
      inner,
    )
    try {
      return s.containerFlow(node, info)
    } finally {
      s.handle = inner
    }
  }
  const markdown = printMarkdown(children, { root })
  return { markdown, spans }
}

function countLines(s: string): number {
  let n = 1
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++
  return n
}
