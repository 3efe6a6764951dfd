// Which root of a document holds its content, and what kind it is, read straight from the item
// lists so a live room's doc is never changed (no root type is instantiated or converted).
import * as Y from 'yjs'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Yjs types its roots with `any` events
export type AnyType = Y.AbstractType<any>

export type RootKind = 'text' | 'xml' | 'map' | 'empty'

/**
 * Roots tried first, in this order, by editor convention: `default` (Tiptap, the console, what
 * Tandem writes), `prosemirror` (y-prosemirror's examples), then plain-text editors' names.
 */
const PREFERRED_ROOTS = ['default', 'prosemirror', 'content', 'text', 'codemirror', 'monaco', 'quill']

/** The root Tandem writes into a document that has no content yet. */
export const DEFAULT_ROOT = 'default'

export function* liveItems(type: AnyType): Generator<Y.Item> {
  for (let item = type._start; item !== null; item = item.right) if (!item.deleted) yield item
}

export function kindOf(type: AnyType): RootKind {
  for (const item of liveItems(type)) {
    if (item.content instanceof Y.ContentString || item.content instanceof Y.ContentEmbed || item.content instanceof Y.ContentFormat) return 'text'
    if (item.content instanceof Y.ContentType) {
      const t = item.content.type
      if (t instanceof Y.XmlElement || t instanceof Y.XmlText) return 'xml'
    }
  }
  for (const item of type._map.values()) if (!item.deleted) return 'map'
  return 'empty'
}

/** The root holding the document's content: a preferred name first, then any other by name; null when none has any. */
export function contentRoot(doc: Y.Doc): { name: string; type: AnyType; kind: 'text' | 'xml' } | null {
  const names = [...doc.share.keys()].sort((a, b) => {
    const ia = PREFERRED_ROOTS.indexOf(a)
    const ib = PREFERRED_ROOTS.indexOf(b)
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || (a < b ? -1 : a > b ? 1 : 0)
  })
  for (const name of names) {
    const type = doc.share.get(name)!
    const kind = kindOf(type)
    if (kind === 'text' || kind === 'xml') return { name, type, kind }
  }
  return null
}

/** A named root and its kind ('empty' when the document has no such root or nothing in it). */
export function namedRoot(doc: Y.Doc, name: string): { name: string; type: AnyType | null; kind: RootKind } {
  const type = doc.share.get(name) ?? null
  return { name, type, kind: type ? kindOf(type) : 'empty' }
}
