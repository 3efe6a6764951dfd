// What a write can see and change of a document. ProseMirror JSON sees everything. Markdown sees
// only what Markdown can say: a Tiptap link's `target` and `rel`, a paragraph's alignment, an
// underline or an empty paragraph have no Markdown, so a Markdown write compares without them and
// leaves them as they are, instead of "removing" what its reader could never have seen.
import type { PmMark, PmNode } from './pm-json.js'

export interface Lens {
  /** the attribute keys of a node type a write manages; null: all of them */
  attrKeys(type: string): readonly string[] | null
  /** the attribute keys of a mark type a write manages; null: all; undefined: the mark is not managed */
  markKeys(type: string): readonly string[] | null | undefined
  /** whether a node of the document takes part at all (false: never compared, moved or deleted) */
  visible(node: PmNode): boolean
  /** whether the formatting of white space is seen (Markdown moves it out of emphasis) */
  formatsWhitespace: boolean
  /** attribute values that read the same as no attribute (a list's `tight: true`) */
  defaults: Readonly<Record<string, unknown>>
}

export const FULL: Lens = {
  attrKeys: () => null,
  markKeys: () => null,
  visible: () => true,
  formatsWhitespace: true,
  defaults: {},
}

const MD_NODE_ATTRS: Record<string, readonly string[]> = {
  heading: ['level'],
  bulletList: ['tight'],
  bullet_list: ['tight'],
  taskList: ['tight'],
  orderedList: ['start', 'tight'],
  ordered_list: ['order', 'tight'],
  codeBlock: ['language'],
  code_block: ['language'],
  taskItem: ['checked'],
  tableHeader: ['align'],
  tableCell: ['align'],
  table_header: ['align'],
  table_cell: ['align'],
  image: ['src', 'alt', 'title', 'link'],
}

const MD_MARKS: Record<string, readonly string[]> = {
  bold: [],
  strong: [],
  italic: [],
  em: [],
  strike: [],
  code: [],
  link: ['href', 'title'],
}

export const MARKDOWN: Lens = {
  attrKeys: (type) => MD_NODE_ATTRS[type] ?? [],
  markKeys: (type) => MD_MARKS[type],
  // Markdown has no empty paragraph: a blank line only separates blocks.
  visible: (node) => !(node.type === 'paragraph' && !node.content?.length),
  // `**a** *b*` prints an italic space before b as plain: what a Markdown reader never saw stays.
  formatsWhitespace: false,
  // A list is tight unless it says otherwise; prosemirror-markdown's documents say `tight: true`.
  defaults: { tight: true },
}

function pick(
  attrs: Record<string, unknown> | undefined,
  keys: readonly string[] | null | undefined,
  defaults: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> | undefined {
  if (!attrs) return undefined
  if (keys === null) return attrs
  const out: Record<string, unknown> = {}
  for (const k of keys ?? [])
    if (attrs[k] !== undefined && attrs[k] !== null && attrs[k] !== defaults[k]) out[k] = attrs[k]
  return Object.keys(out).length ? out : undefined
}

/** A node as the lens sees it: managed attributes and marks only, invisible children dropped. */
export function project(lens: Lens, n: PmNode): PmNode {
  if (lens === FULL) return n
  const out: PmNode = { type: n.type }
  const attrs = pick(n.attrs, lens.attrKeys(n.type), lens.defaults)
  if (attrs) out.attrs = attrs
  if (n.text !== undefined) out.text = n.text
  if (n.marks) {
    const marks = n.marks.flatMap((m): PmMark[] => {
      const keys = lens.markKeys(m.type)
      if (keys === undefined) return []
      const a = pick(m.attrs, keys)
      return [a ? { type: m.type, attrs: a } : { type: m.type }]
    })
    if (marks.length) out.marks = marks
  }
  if (n.content) {
    const content = n.content.filter((c) => lens.visible(c)).map((c) => project(lens, c))
    if (content.length) out.content = content
  }
  return out
}
