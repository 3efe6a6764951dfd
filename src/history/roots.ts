// What kind of shared type a root is. The server never calls getText/getXmlFragment, so roots of
// the history document are untyped AbstractTypes; their items say what they hold.
import * as Y from 'yjs'

/** Any shared type; Yjs types its event parameter, which nothing here uses. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyType = Y.AbstractType<any>

export type RootKind = 'text' | 'xml' | 'array' | 'map' | 'empty'

export function rootKind(type: AnyType): RootKind {
  for (let item = type._start; item !== null; item = item.right) {
    const c = item.content
    if (c instanceof Y.ContentString || c instanceof Y.ContentFormat || c instanceof Y.ContentEmbed) return 'text'
    if (c instanceof Y.ContentType) {
      const t = c.type
      return t instanceof Y.XmlElement || t instanceof Y.XmlText || t instanceof Y.XmlHook ? 'xml' : 'array'
    }
    if (c instanceof Y.ContentAny || c instanceof Y.ContentJSON || c instanceof Y.ContentBinary) return 'array'
  }
  return type._map.size > 0 ? 'map' : 'empty'
}

/** The kind of a nested type, from its class. */
export function typeKind(t: AnyType): RootKind {
  if (t instanceof Y.XmlText || t instanceof Y.Text) return 'text'
  if (t instanceof Y.XmlElement || t instanceof Y.XmlFragment) return 'xml'
  if (t instanceof Y.Array) return 'array'
  return 'map'
}

/** Roots in name order, so responses do not depend on the order updates arrived in. */
export function rootsOf(doc: Y.Doc): [string, AnyType][] {
  return [...doc.share.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}
