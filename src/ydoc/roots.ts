// What a Y.Doc's roots are, read straight from their item lists so a live room's doc is never
// changed: the server never calls getText or getXmlFragment on a document it serves, so its roots
// are untyped AbstractTypes and only their items say what they hold. The one classifier of root
// kinds: content asks what a root holds now (deleted items skipped), history what it has held
// (deleted items count, since a changeset or a rollback works on them).
import * as Y from 'yjs'

/** Any shared type; Yjs types its event parameter, which nothing here uses. */
export type AnyType = Y.AbstractType<any>

export type RootKind = 'text' | 'xml' | 'array' | 'map' | 'empty'

export function* liveItems(type: AnyType): Generator<Y.Item> {
  for (let item = type._start; item !== null; item = item.right) if (!item.deleted) yield item
}

/** What a root holds now: deleted items and map entries are skipped, so a root emptied is 'empty'. */
export const liveKind = (type: AnyType): RootKind => classify(type, true)

/** What a root is, deleted items included: a text whose every character was deleted is still 'text'. */
export const kindIncludingDeleted = (type: AnyType): RootKind => classify(type, false)

function classify(type: AnyType, liveOnly: boolean): RootKind {
  // Text and XML items decide at once. Array items are only noted: a Y.Text may embed a shared
  // type or a value before its first character, and an array never holds text or XML items.
  let array = false
  for (let item = type._start; item !== null; item = item.right) {
    if (liveOnly && item.deleted) continue
    const c = item.content
    if (c instanceof Y.ContentString || c instanceof Y.ContentFormat || c instanceof Y.ContentEmbed) return 'text'
    if (c instanceof Y.ContentType) {
      const t = c.type
      if (t instanceof Y.XmlElement || t instanceof Y.XmlText || t instanceof Y.XmlHook) return 'xml'
      array = true
    }
    if (c instanceof Y.ContentAny || c instanceof Y.ContentJSON || c instanceof Y.ContentBinary) array = true
  }
  if (array) return 'array'
  for (const item of type._map.values()) if (!liveOnly || !item.deleted) return 'map'
  return 'empty'
}

/** The kind of a nested type, from its class (nested types are typed, unlike roots). */
export function typeKind(t: AnyType): RootKind {
  if (t instanceof Y.XmlText || t instanceof Y.Text) return 'text'
  if (t instanceof Y.XmlElement || t instanceof Y.XmlFragment) return 'xml'
  if (t instanceof Y.Array) return 'array'
  return 'map'
}

/** Roots in name order, so answers do not depend on the order updates arrived in. */
export function rootsOf(doc: Y.Doc): [string, AnyType][] {
  return [...doc.share.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}
