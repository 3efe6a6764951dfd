// Which root of a document holds its content, and what kind it is now (src/ydoc/roots.ts reads it
// from the item lists, so a live room's doc is never changed).
import type * as Y from 'yjs'
import { liveKind, type AnyType, type RootKind } from '../ydoc/roots.js'

/**
 * Roots tried first, in this order, by editor convention: `default` (Tiptap, the console, what
 * Tandem writes), `prosemirror` (y-prosemirror's examples), then plain-text editors' names.
 */
const PREFERRED_ROOTS = ['default', 'prosemirror', 'content', 'text', 'codemirror', 'monaco', 'quill']

/** The root Tandem writes into a document that has no content yet. */
export const DEFAULT_ROOT = 'default'

/** The root holding the document's content: a preferred name first, then any other by name; null when none has any. */
export function contentRoot(doc: Y.Doc): { name: string; type: AnyType; kind: 'text' | 'xml' } | null {
  const names = [...doc.share.keys()].sort((a, b) => {
    const ia = PREFERRED_ROOTS.indexOf(a)
    const ib = PREFERRED_ROOTS.indexOf(b)
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || (a < b ? -1 : a > b ? 1 : 0)
  })
  for (const name of names) {
    const type = doc.share.get(name)!
    const kind = liveKind(type)
    if (kind === 'text' || kind === 'xml') return { name, type, kind }
  }
  return null
}

/** A named root and its kind ('empty' when the document has no such root or nothing in it). */
export function namedRoot(doc: Y.Doc, name: string): { name: string; type: AnyType | null; kind: RootKind } {
  const type = doc.share.get(name) ?? null
  return { name, type, kind: type ? liveKind(type) : 'empty' }
}
