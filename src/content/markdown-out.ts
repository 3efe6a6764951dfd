// A ProseMirror JSON document as Markdown: CommonMark, with GFM tables, task lists and
// strikethrough where the document has them, printed by mdast-util-to-markdown (which escapes
// what would otherwise read as syntax). Both vocabularies read the same; what Markdown cannot say
// (underline, alignment, empty paragraphs) is left out, and an unknown block reads as its text.
import type * as M from 'mdast'
import { gfmToMarkdown } from 'mdast-util-gfm'
import { toMarkdown, type Options } from 'mdast-util-to-markdown'
import { EMPTY_LINK_TEXT } from './markdown-inline.js'
import { withoutMarkerRefs } from './markdown-refs.js'
import type { PmMark, PmNode } from './pm-json.js'

const BULLET_LISTS = new Set(['bulletList', 'bullet_list'])
const ORDERED_LISTS = new Set(['orderedList', 'ordered_list'])
const CODE_BLOCKS = new Set(['codeBlock', 'code_block'])
const RULES = new Set(['horizontalRule', 'horizontal_rule'])
const BREAKS = new Set(['hardBreak', 'hard_break'])

export function pmToMarkdown(doc: PmNode): string {
  return printMarkdown(blocks(doc.content))
}

const PRINT: Options = {
  extensions: [gfmToMarkdown()],
  bullet: '-',
  emphasis: '*',
  strong: '*',
  fence: '`',
  fences: true,
  rule: '-',
  listItemIndent: 'one',
  incrementListMarker: true,
}

/**
 * A document's top-level blocks (block() of each) printed as one Markdown text. `handlers` lets a
 * caller watch the printing (markdown-spans.ts records where each block lands); they must print
 * exactly what the default ones do, or the whole-document read and a part read would differ.
 */
export function printMarkdown(children: M.BlockContent[], handlers?: Options['handlers']): string {
  if (children.length === 0) return ''
  return withoutMarkerRefs(toMarkdown({ type: 'root', children }, handlers ? { ...PRINT, handlers } : PRINT))
}

function textOf(n: PmNode): string {
  if (n.type === 'text') return n.text ?? ''
  if (BREAKS.has(n.type)) return '\n'
  return (n.content ?? []).map(textOf).join('')
}

function blocks(content: readonly PmNode[] | undefined): M.BlockContent[] {
  return (content ?? []).flatMap((n) => block(n))
}

/** A top-level node as the Markdown blocks it prints as (none for an empty paragraph, several for a wrapper). */
export function block(n: PmNode): M.BlockContent[] {
  const attrs = n.attrs ?? {}
  if (n.type === 'paragraph') {
    const children = inline(n.content)
    return children.length ? [{ type: 'paragraph', children }] : []
  }
  if (n.type === 'heading') {
    const depth = Math.min(6, Math.max(1, Number(attrs.level) || 1)) as M.Heading['depth']
    return [{ type: 'heading', depth, children: inline(n.content) }]
  }
  if (n.type === 'blockquote') return [{ type: 'blockquote', children: blocks(n.content) }]
  if (BULLET_LISTS.has(n.type)) return [list(n, false, null)]
  if (ORDERED_LISTS.has(n.type)) return [list(n, true, startOf(attrs))]
  if (n.type === 'taskList') return [list(n, false, null)]
  if (CODE_BLOCKS.has(n.type)) {
    const lang = (attrs.language ?? attrs.params ?? null) as string | null
    return [{ type: 'code', lang: lang || null, meta: null, value: textOf(n) }]
  }
  if (RULES.has(n.type)) return [{ type: 'thematicBreak' }]
  if (n.type === 'table') return [table(n)]
  if (n.type === 'image') return [{ type: 'paragraph', children: inline([n]) }]
  // An element Markdown has no form for: its blocks if it holds blocks, else its text.
  const inner = n.content ?? []
  if (inner.length && inner.every((c) => c.type !== 'text' && !BREAKS.has(c.type) && c.type !== 'image'))
    return blocks(inner)
  const children = inline(inner)
  return children.length ? [{ type: 'paragraph', children }] : []
}

/** An ordered list's first number: any whole number from 0 (CommonMark allows 0 to 999999999), else 1. */
function startOf(attrs: Record<string, unknown>): number {
  const start = Number(attrs.start ?? attrs.order ?? 1)
  return Number.isInteger(start) && start >= 0 ? start : 1
}

/** A list is tight unless it says `tight: false` (a loose list has its items' blocks apart by blank lines). */
function list(n: PmNode, ordered: boolean, start: number | null): M.List {
  const spread = n.attrs?.tight === false
  const items = (n.content ?? []).map((item): M.ListItem => {
    const li: M.ListItem = { type: 'listItem', spread, children: blocks(item.content) }
    if (item.type === 'taskItem') li.checked = item.attrs?.checked === true
    return li
  })
  return ordered
    ? { type: 'list', ordered, start, spread, children: items }
    : { type: 'list', ordered, spread, children: items }
}

function table(n: PmNode): M.Table {
  const rows = (n.content ?? []).map((row): M.TableRow => ({
    type: 'tableRow',
    children: (row.content ?? []).map((cell): M.TableCell => ({ type: 'tableCell', children: cellInline(cell) })),
  }))
  // GFM prints the first row as the header row, whatever its cells are in the document; its
  // cells' `align` is the columns' alignment.
  const align = (n.content?.[0]?.content ?? []).map((cell): M.AlignType => {
    const a = cell.attrs?.align
    return a === 'left' || a === 'center' || a === 'right' ? a : null
  })
  return { type: 'table', align, children: rows }
}

/** A cell's blocks as one line of phrasing (GFM cells hold no blocks). */
function cellInline(cell: PmNode): M.PhrasingContent[] {
  const out: M.PhrasingContent[] = []
  for (const b of cell.content ?? []) {
    const part =
      b.type === 'paragraph' || b.type === 'heading'
        ? inline(b.content)
        : [{ type: 'text', value: textOf(b) } as M.Text]
    if (out.length && part.length) out.push({ type: 'text', value: ' ' })
    out.push(...part)
  }
  return out
}

type Wrapper = 'link' | 'strong' | 'emphasis' | 'delete'

/** The mark that wraps phrasing, and its rank: outer marks first, so runs sharing it nest inside one node. */
function wrapperOf(m: PmMark): Wrapper | null {
  switch (m.type) {
    case 'link':
      return 'link'
    case 'bold':
    case 'strong':
      return 'strong'
    case 'italic':
    case 'em':
      return 'emphasis'
    case 'strike':
      return 'delete'
    default:
      return null
  }
}
/** Which mark goes outside when two wrap exactly the same text (markdown-it reads `***a***` as em > strong). */
const RANK: Wrapper[] = ['link', 'emphasis', 'strong', 'delete']

interface Wrap {
  kind: Wrapper
  mark: PmMark
}

interface Leaf {
  node: PmNode
  wraps: Wrap[]
}

/** An image's `link` attribute is the link around it (markdown-inline.ts). */
function imageLink(node: PmNode): Wrap[] {
  const link = node.type === 'image' ? node.attrs?.link : undefined
  return link && typeof link === 'object'
    ? [{ kind: 'link', mark: { type: 'link', attrs: link as Record<string, unknown> } }]
    : []
}

function inline(content: readonly PmNode[] | undefined): M.PhrasingContent[] {
  const leaves: Leaf[] = (content ?? []).map((node) => ({
    node,
    wraps: [
      ...imageLink(node),
      ...(node.marks ?? []).flatMap((mark) => {
        const kind = wrapperOf(mark)
        return kind ? [{ kind, mark }] : []
      }),
    ],
  }))
  // A hard break carries no marks in Yjs: it takes those of the text on both sides, so the break
  // of `*foo\\nbar*` stays inside the emphasis.
  leaves.forEach((l, i) => {
    const [before, after] = [leaves[i - 1], leaves[i + 1]]
    if (BREAKS.has(l.node.type) && l.wraps.length === 0 && before && after) {
      l.wraps = before.wraps.filter((w) => after.wraps.some((x) => sameWrap(x, w)))
    }
  })
  return nest(leaves)
}

const sameWrap = (a: Wrap, b: Wrap) =>
  a.kind === b.kind &&
  (a.kind !== 'link' || (a.mark.attrs?.href === b.mark.attrs?.href && a.mark.attrs?.title === b.mark.attrs?.title))

/**
 * Leaves as nested phrasing: at each leaf, the mark whose run goes on longest wraps the whole run
 * (its other marks nest inside), so `*foo **bar** baz*` stays one emphasis around a strong, and
 * one emphasis spans a link inside it. Each level removes one mark, so the depth is the number
 * of marks; each leaf is scanned once per mark a level.
 */
function nest(leaves: Leaf[]): M.PhrasingContent[] {
  const out: M.PhrasingContent[] = []
  let i = 0
  while (i < leaves.length) {
    const here = leaves[i]!
    let best: Wrap | null = null
    let end = i
    for (const w of here.wraps) {
      let j = i + 1
      while (j < leaves.length && leaves[j]!.wraps.some((x) => sameWrap(x, w))) j++
      if (j > end || (j === end && best && RANK.indexOf(w.kind) < RANK.indexOf(best.kind))) {
        best = w
        end = j
      }
    }
    if (!best) {
      out.push(...leaf(here.node))
      i++
      continue
    }
    const w = best
    const children = nest(
      leaves.slice(i, end).map((l) => ({ node: l.node, wraps: l.wraps.filter((x) => !sameWrap(x, w)) })),
    )
    // Emphasis cannot open or close on white space (`* b*` is not emphasis): it goes outside.
    const [before, after] = w.kind === 'link' ? ['', ''] : expel(children)
    if (before) out.push({ type: 'text', value: before })
    if (w.kind === 'link') {
      const title = w.mark.attrs?.title
      // A link without text holds one zero-width space in the document (markdown-inline.ts).
      const empty = children.length === 1 && children[0]!.type === 'text' && children[0].value === EMPTY_LINK_TEXT
      out.push({
        type: 'link',
        url: String(w.mark.attrs?.href ?? ''),
        title: typeof title === 'string' ? title : null,
        children: empty ? [] : children,
      })
    } else if (children.length) out.push({ type: w.kind, children } as M.PhrasingContent)
    if (after) out.push({ type: 'text', value: after })
    i = end
  }
  return out
}

/** Takes the white space off the ends of emphasised phrasing, to print beside it. */
function expel(children: M.PhrasingContent[]): [string, string] {
  let before = ''
  let after = ''
  const first = children[0]
  if (first?.type === 'text') {
    const m = /^\s+/.exec(first.value)
    if (m) {
      before = m[0]
      first.value = first.value.slice(before.length)
      if (!first.value) children.shift()
    }
  }
  const last = children[children.length - 1]
  if (last?.type === 'text') {
    const m = /\s+$/.exec(last.value)
    if (m) {
      after = m[0]
      last.value = last.value.slice(0, -after.length)
      if (!last.value) children.pop()
    }
  }
  return [before, after]
}

function leaf(n: PmNode): M.PhrasingContent[] {
  if (n.type === 'text') {
    const value = n.text ?? ''
    if (!value) return []
    return n.marks?.some((m) => m.type === 'code') ? [{ type: 'inlineCode', value }] : [{ type: 'text', value }]
  }
  if (BREAKS.has(n.type)) return [{ type: 'break' }]
  if (n.type === 'image') {
    const a = n.attrs ?? {}
    return [
      {
        type: 'image',
        url: String(a.src ?? ''),
        alt: typeof a.alt === 'string' ? a.alt : null,
        title: typeof a.title === 'string' ? a.title : null,
      },
    ]
  }
  const text = textOf(n)
  return text ? [{ type: 'text', value: text }] : []
}
