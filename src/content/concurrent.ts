// The third side of a content write's merge: what others inserted since the base, by where it
// stands in the base. A write's change is computed on the document at its base (the agent's side);
// the document now holds others' insertions too. Where the agent inserts at a place (a gap between
// two characters, or two children, of the base) and others inserted the same there since, the
// agent's insertion is an echo of theirs (it read again and kept the old base, or copied what a
// person typed) and is left out, so the CRDT merge does not hold it twice.
//
// A gap is named by how many of the parent's units were live at the base before it: characters of
// a text (an embed counts one), children of an element. Others' new live units are gathered per gap
// by walking the parent's items in the document now: items the base holds (by state vector) count
// the base's units, even when deleted since; items it does not hold and that are live are others'.
// The base document is being edited meanwhile: what it held is read from its state vector and
// delete set taken before, and from item ranges, which an edit splits but never changes.
import * as Y from 'yjs'
import type { AnyType } from '../ydoc/roots.js'

const EMBED = '\uFFFC'

/** Others' insertions since the base, per gap of a parent of the base document. */
export interface Concurrent {
  /** per gap of a base text, the text others inserted there (absent: nothing) */
  textGaps(text: AnyType): Map<number, string>
  /** per gap of a base element or fragment, the children others inserted there */
  childGaps(parent: AnyType): Map<number, AnyType[]>
}

type Unit = { text: string } | { child: AnyType }

/**
 * `base`: the document the change is computed on, at the base (read its state vector and deletions
 * before changing it); `now`: the document as it is, encoded. Call `done` after.
 */
export function concurrentSince(
  base: Y.Doc,
  now: Uint8Array,
): Concurrent & { holdsClient(client: number): boolean; done(): void } {
  const doc = new Y.Doc()
  Y.applyUpdate(doc, now)
  const sv = Y.decodeStateVector(Y.encodeStateVector(base))
  const deletedAtBase = Y.createDeleteSetFromStructStore(base.store)
  const inBase = (id: Y.ID) => id.clock < (sv.get(id.client) ?? 0)

  /** The type of `doc` that is `t` of the base document (null: none, or collected). */
  function counterpart(t: AnyType): AnyType | null {
    if (t._item === null) {
      for (const [name, root] of base.share) {
        if (root !== t) continue
        if (root instanceof Y.XmlFragment) return doc.getXmlFragment(name)
        if (root instanceof Y.Text) return doc.getText(name)
      }
      return null
    }
    try {
      const item = Y.getItem(doc.store, t._item.id)
      return item instanceof Y.Item && item.content instanceof Y.ContentType ? item.content.type : null
    } catch {
      return null
    }
  }

  /**
   * How many units of an item of the base the base held live. Live now: all of it (a deletion is
   * for good). Deleted since: its content may be collected (no longer telling a character from a
   * format), so the base document says, range by range, what was live and countable there.
   */
  function baseUnits(item: Y.Item): number {
    if (!item.deleted) return item.countable ? item.length : 0
    const { client } = item.id
    let n = 0
    for (let clock = item.id.clock, end = clock + item.length; clock < end;) {
      const was = Y.getItem(base.store, Y.createID(client, clock)) as Y.Item | Y.GC
      const stop = Math.min(end, was.id.clock + was.length)
      if (was instanceof Y.Item && was.countable && !Y.isDeleted(deletedAtBase, Y.createID(client, clock)))
        n += stop - clock
      clock = stop
    }
    return n
  }

  function gaps(t: AnyType, unitOf: (item: Y.Item) => Unit | null): Map<number, Unit[]> {
    const out = new Map<number, Unit[]>()
    const now = counterpart(t)
    if (!now) return out
    let gap = 0
    for (let item = now._start; item !== null; item = item.right) {
      if (inBase(item.id)) gap += baseUnits(item)
      else if (!item.deleted && item.countable) {
        const unit = unitOf(item)
        if (unit) out.set(gap, [...(out.get(gap) ?? []), unit])
      }
    }
    return out
  }

  return {
    textGaps(text) {
      const out = new Map<number, string>()
      const unit = (item: Y.Item): Unit => ({
        text: item.content instanceof Y.ContentString ? item.content.str : EMBED.repeat(item.length),
      })
      for (const [gap, units] of gaps(text, unit)) out.set(gap, units.map((u) => ('text' in u ? u.text : '')).join(''))
      return out
    },
    childGaps(parent) {
      const out = new Map<number, AnyType[]>()
      const unit = (item: Y.Item): Unit | null =>
        item.content instanceof Y.ContentType ? { child: item.content.type } : null
      for (const [gap, units] of gaps(parent, unit))
        out.set(
          gap,
          units.flatMap((u) => ('child' in u ? [u.child] : [])),
        )
      return out
    },
    holdsClient: (client) => doc.store.clients.has(client),
    done: () => doc.destroy(),
  }
}

/**
 * Whether inserting `s` at gap `g` of the base text `base` only repeats what others inserted there:
 * their text at that gap contains it. The same insertion has several spellings when it borders
 * the characters it repeats (`a` + `ab` at 1 is `ab` + `a` at 0): a character diff picks one,
 * the person typed another, so each spelling is tried at its own gap.
 */
export function echoed(others: Map<number, string>, base: string, g: number, s: string): boolean {
  const at = (gap: number, t: string) => others.get(gap)?.includes(t) ?? false
  if (at(g, s)) return true
  // spellings further left: the last character of `s` is the base's just before the gap
  for (let gap = g, t = s; gap > 0 && gap > g - s.length && base[gap - 1] === t[t.length - 1];) {
    t = base[gap - 1] + t.slice(0, -1)
    if (at(--gap, t)) return true
  }
  // and further right: its first character is the base's just after the gap
  for (let gap = g, t = s; gap < base.length && gap < g + s.length && base[gap] === t[0];) {
    t = t.slice(1) + base[gap]
    if (at(++gap, t)) return true
  }
  return false
}
