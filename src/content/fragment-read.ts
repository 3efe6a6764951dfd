// An XML root as ProseMirror JSON, the way y-prosemirror and Tiptap's binding store it: an
// element per node (its name the node type, its attributes the node's attrs) and a Y.XmlText per
// run of text, whose formatting attributes are the marks (`{bold: {}}`, `{link: {href}}`).
// Read from the item lists, so the root is never instantiated as a type. A document nesting past
// MAX_DEPTH is refused whole (depth.ts), never read cut, and the walk never recurses further.
import * as Y from 'yjs'
import { documentTooDeep, MAX_DEPTH } from './depth.js'
import type { PmMark, PmNode } from './pm-json.js'
import { liveItems, type AnyType } from '../ydoc/roots.js'

export function fragmentToPm(root: AnyType): PmNode {
  return { type: 'doc', content: childrenOf(root, 1) }
}

/** The children of `t`, which are at `depth`. */
function childrenOf(t: AnyType, depth: number): PmNode[] {
  const out: PmNode[] = []
  for (const item of liveItems(t)) {
    if (!(item.content instanceof Y.ContentType)) continue
    const child = item.content.type
    if (child instanceof Y.XmlText) out.push(...textNodes(child))
    else if (child instanceof Y.XmlElement) out.push(elementNode(child, depth))
  }
  return out
}

/** An element at `depth` (1 for a root's child; a deeper caller passes its own) as a node. */
export function elementNode(e: Y.XmlElement, depth = 1): PmNode {
  if (depth > MAX_DEPTH) throw documentTooDeep()
  const node: PmNode = { type: e.nodeName }
  const attrs = e.getAttributes() as Record<string, unknown>
  delete attrs.ychange // y-prosemirror's change-tracking decoration, not a node attribute
  if (Object.keys(attrs).length) node.attrs = attrs
  const content = childrenOf(e, depth + 1)
  if (content.length) node.content = content
  return node
}

/** y-prosemirror keys marks that may overlap (`comment--<hash>`) apart; the type is before `--`. */
export const markTypeOf = (key: string) => {
  const cut = key.indexOf('--')
  return cut > 0 ? key.slice(0, cut) : key
}

export function textNodes(t: Y.XmlText): PmNode[] {
  const out: PmNode[] = []
  for (const op of t.toDelta() as { insert: unknown; attributes?: Record<string, unknown> }[]) {
    if (typeof op.insert !== 'string' || op.insert === '') continue
    const node: PmNode = { type: 'text', text: op.insert }
    const marks: PmMark[] = []
    for (const [key, value] of Object.entries(op.attributes ?? {})) {
      if (key === 'ychange' || value === null) continue
      const mark: PmMark = { type: markTypeOf(key) }
      if (typeof value === 'object' && Object.keys(value as object).length)
        mark.attrs = value as Record<string, unknown>
      marks.push(mark)
    }
    if (marks.length) node.marks = marks
    out.push(node)
  }
  return out
}
