// Rollback as a new change: the history document is walked once, each run is compared with what
// the rollback wants (present or not), and the difference is applied to a copy of the current
// document. The copy's one transaction is the update the caller sends through the room, so the
// past stays untouched and live editors receive an ordinary change. Deleted content comes back
// as new items with the same content and formatting (Yjs cannot undelete an item). What a rollback
// can want: rollback-wants.ts.
import * as Y from 'yjs'
import { kindIncludingDeleted, rootsOf, type AnyType, typeKind, type RootKind } from '../ydoc/roots.js'
import type { RollbackSource, Want } from './rollback-wants.js'
import { contentOf, itemsOf, runsOf, type Run } from './runs.js'

export interface RollbackResult {
  /** the change to apply, null when the document already is what the rollback wants */
  update: Uint8Array | null
  /** units deleted, brought back, and given back their formatting */
  removed: number
  restored: number
  reformatted: number
}

export function rollback(h: RollbackSource, want: Want): RollbackResult {
  const copy = new Y.Doc({ gc: false })
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(h.doc))
  const r = new Reconciler(h, want, copy)
  let update: Uint8Array | null = null
  copy.on('update', (u: Uint8Array) => {
    update = update ? Y.mergeUpdates([update, u]) : u
  })
  const roots = rootsOf(h.doc)
    .map(([name, src]) => ({ src, kind: kindIncludingDeleted(src), name }))
    .filter((x) => x.kind !== 'empty')
    .map((x) => ({ ...x, dst: rootOf(copy, x.name, x.kind) }))
  const before = roots.map((x) => reading(x.dst))
  copy.transact(() => {
    for (const x of roots) r.nested(x.src, x.kind, x.dst)
  })
  // Content restored by an earlier rollback is newer than `to`, so a second identical rollback
  // would swap it for yet another copy; when the document already reads as wanted, send nothing.
  const same = roots.every((x, i) => reading(x.dst) === before[i])
  copy.destroy()
  if (same || r.removed + r.restored + r.reformatted === 0)
    return { update: null, removed: 0, restored: 0, reformatted: 0 }
  return { update, removed: r.removed, restored: r.restored, reformatted: r.reformatted }
}

function rootOf(doc: Y.Doc, name: string, kind: RootKind): AnyType {
  if (kind === 'text') return doc.getText(name)
  if (kind === 'xml') return doc.getXmlFragment(name)
  if (kind === 'array') return doc.getArray(name)
  return doc.getMap(name)
}

type Seq = Y.Text | Y.XmlFragment | Y.Array<unknown>

class Reconciler {
  removed = 0
  restored = 0
  reformatted = 0

  constructor(
    private readonly h: RollbackSource,
    private readonly want: Want,
    private readonly copy: Y.Doc,
  ) {}

  nested(src: AnyType, kind: RootKind, dst: AnyType): void {
    if (kind === 'map') return this.map(src, dst as Y.Map<unknown> | Y.XmlElement)
    if (dst instanceof Y.XmlElement) this.map(src, dst)
    this.seq(src, dst as Seq)
  }

  private seq(src: AnyType, dst: Seq): void {
    let pos = 0
    // text formatting the rollback wants, and the units of text it wants with their formatting
    const attrs: Record<string, unknown> = {}
    const wantedText: { len: number; attrs: Record<string, unknown> }[] = []
    for (const item of itemsOf(src)) {
      const c = item.content
      if (c instanceof Y.ContentFormat) {
        for (const r of runsOf(item, this.h.index)) if (this.want(r)) setAttr(attrs, c.key, c.value)
        continue
      }
      if (!item.countable) continue // content garbage-collected before the retained history
      for (const r of runsOf(item, this.h.index)) {
        const present = !item.deleted
        const wanted = this.want(r)
        if (wanted) wantedText.push({ len: r.len, attrs: { ...attrs } })
        if (present && wanted) {
          if (c instanceof Y.ContentType) this.nested(c.type, typeKind(c.type), this.counterpart(item))
          pos += r.len
        } else if (present) {
          dst.delete(pos, r.len)
          this.removed += r.len
        } else if (wanted) {
          if (this.insert(dst, pos, r, attrs)) {
            pos += r.len
            this.restored += r.len
          } else wantedText.pop()
        }
      }
    }
    if (dst instanceof Y.Text) this.reformat(dst, wantedText)
  }

  /**
   * Second pass over text whose content is now what the rollback wants: ranges whose formatting
   * differs get `format`. Done against the copy's own delta because Yjs moves and drops format
   * marks as it edits, so the marks of the history document say nothing exact about the copy.
   */
  private reformat(dst: Y.Text, wanted: { len: number; attrs: Record<string, unknown> }[]): void {
    const now = (dst.toDelta() as { insert: unknown; attributes?: Record<string, unknown> }[]).map((op) => ({
      len: typeof op.insert === 'string' ? op.insert.length : 1,
      attrs: op.attributes ?? {},
    }))
    if (now.reduce((n, r) => n + r.len, 0) !== wanted.reduce((n, r) => n + r.len, 0)) return
    // walk both lists unit by unit; neighbouring units needing the same change become one range
    const ranges: { pos: number; len: number; key: string; diff: Record<string, unknown> }[] = []
    let pos = 0
    for (let i = 0, j = 0, iUsed = 0, jUsed = 0; i < now.length && j < wanted.length;) {
      const len = Math.min(now[i]!.len - iUsed, wanted[j]!.len - jUsed)
      const diff = formatDiff(now[i]!.attrs, wanted[j]!.attrs)
      if (diff) {
        const key = JSON.stringify(diff)
        const last = ranges[ranges.length - 1]
        if (last && last.key === key && last.pos + last.len === pos) last.len += len
        else ranges.push({ pos, len, key, diff })
      }
      pos += len
      iUsed += len
      jUsed += len
      if (iUsed === now[i]!.len) (i++, (iUsed = 0))
      if (jUsed === wanted[j]!.len) (j++, (jUsed = 0))
    }
    for (const r of ranges) {
      dst.format(r.pos, r.len, r.diff)
      this.reformatted += r.len
    }
  }

  private map(src: AnyType, dst: Y.Map<unknown> | Y.XmlElement): void {
    for (const [key, latest] of src._map) {
      const present = latest.deleted ? null : latest
      let target: Y.Item | null = null
      for (let it: Y.Item | null = latest; it !== null && target === null; it = it.left) {
        const r = runsOf(it, this.h.index).next().value
        if (r && it.countable && this.want(r)) target = it
      }
      if (target === present) {
        if (present && present.content instanceof Y.ContentType) {
          const t = present.content.type
          this.nested(t, typeKind(t), this.counterpart(present))
        }
        continue
      }
      if (target === null) {
        if (dst instanceof Y.XmlElement) dst.removeAttribute(key)
        else dst.delete(key)
        this.removed++
        continue
      }
      const value = this.value(target)
      if (dst instanceof Y.XmlElement) dst.setAttribute(key, value as string)
      else dst.set(key, value)
      this.restored++
    }
  }

  /** The copy's type for an item of the history document (same id in both). */
  private counterpart(item: Y.Item): AnyType {
    return ((Y.getItem(this.copy.store, item.id) as Y.Item).content as Y.ContentType).type
  }

  private insert(dst: Seq, pos: number, r: Run, attrs: Record<string, unknown>): boolean {
    const content = contentOf(r)
    if (!content) return false
    if (dst instanceof Y.Text) {
      if ('text' in content) dst.insert(pos, content.text, { ...attrs })
      else if ('embed' in content) dst.insertEmbed(pos, content.embed as object, { ...attrs })
      else if ('type' in content) dst.insertEmbed(pos, this.clone(content.type), { ...attrs })
      else return false
      return true
    }
    if (dst instanceof Y.XmlFragment) {
      if (!('type' in content)) return false
      dst.insert(pos, [this.clone(content.type) as Y.XmlElement | Y.XmlText])
      return true
    }
    if ('values' in content) dst.insert(pos, content.values)
    else if ('type' in content) dst.insert(pos, [this.clone(content.type)])
    else return false
    return true
  }

  /** A new type holding what the rollback wants of an old one (for content that comes back). */
  private clone(t: AnyType): AnyType {
    if (t instanceof Y.XmlText || t instanceof Y.Text) {
      const n = t instanceof Y.XmlText ? new Y.XmlText() : new Y.Text()
      let pos = 0
      const attrs: Record<string, unknown> = {}
      for (const item of itemsOf(t)) {
        const c = item.content
        for (const r of runsOf(item, this.h.index)) {
          if (!this.want(r)) continue
          if (c instanceof Y.ContentFormat) setAttr(attrs, c.key, c.value)
          else if (item.countable && this.insert(n, pos, r, attrs)) pos += r.len
        }
      }
      return n
    }
    const n =
      t instanceof Y.XmlElement
        ? new Y.XmlElement(t.nodeName)
        : t instanceof Y.XmlFragment
          ? new Y.XmlFragment()
          : t instanceof Y.Array
            ? new Y.Array()
            : new Y.Map()
    if (n instanceof Y.XmlElement || n instanceof Y.Map) {
      for (const [key, latest] of t._map) {
        for (let it: Y.Item | null = latest; it !== null; it = it.left) {
          const r = runsOf(it, this.h.index).next().value
          if (!r || !it.countable || !this.want(r)) continue
          if (n instanceof Y.XmlElement) n.setAttribute(key, this.value(it) as string)
          else n.set(key, this.value(it))
          break
        }
      }
    }
    if (n instanceof Y.XmlFragment || n instanceof Y.Array) {
      const children: unknown[] = []
      for (const item of itemsOf(t)) {
        if (!item.countable) continue
        for (const r of runsOf(item, this.h.index)) {
          if (!this.want(r)) continue
          const content = contentOf(r)
          if (content && 'type' in content) children.push(this.clone(content.type))
          else if (content && 'values' in content) for (const v of content.values) children.push(v)
        }
      }
      if (n instanceof Y.XmlFragment) n.insert(0, children as (Y.XmlElement | Y.XmlText)[])
      else n.insert(0, children)
    }
    return n
  }

  private value(item: Y.Item): unknown {
    const c = item.content
    if (c instanceof Y.ContentType) return this.clone(c.type)
    if (c instanceof Y.ContentAny || c instanceof Y.ContentJSON) return c.arr[c.arr.length - 1]
    if (c instanceof Y.ContentBinary) return c.content
    if (c instanceof Y.ContentEmbed) return c.embed
    if (c instanceof Y.ContentString) return c.str
    return undefined
  }
}

/** What a root reads as: text with its formatting, XML as markup, other types as JSON. */
function reading(t: AnyType): string {
  if (t instanceof Y.Text) return JSON.stringify(t.toDelta())
  if (t instanceof Y.XmlFragment) return t.toString()
  return JSON.stringify(t.toJSON())
}

function setAttr(attrs: Record<string, unknown>, key: string, value: unknown): void {
  if (value === null) delete attrs[key]
  else attrs[key] = value
}

/** The attributes to set (null: remove) so text formatted `current` is formatted `wanted`; null if equal. */
function formatDiff(current: Record<string, unknown>, wanted: Record<string, unknown>): Record<string, unknown> | null {
  let diff: Record<string, unknown> | null = null
  for (const key of new Set([...Object.keys(current), ...Object.keys(wanted)])) {
    const w = wanted[key] ?? null
    if (JSON.stringify(current[key] ?? null) !== JSON.stringify(w)) (diff ??= {})[key] = w
  }
  return diff
}
