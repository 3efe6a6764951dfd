// The "suggestion view" of a time window: the document at `to`, with content inserted in the
// window marked with who and when, and content deleted in the window kept and marked the same way.
// Text roots give a list of runs; XML fragments give element nodes with their children.
import * as Y from 'yjs'
import { kindIncludingDeleted, rootsOf, type AnyType, type RootKind } from '../ydoc/roots.js'
import { contentOf, itemsOf, runsOf, visibleAt, type Mark, type Run } from './runs.js'
import type { Attributes } from '../storage/doc-store.js'
import type { DocHistory } from './timeline.js'
import { whoMatches, whoOf, type AttrFilter } from './who.js'

export interface Window {
  /** ms, inclusive */
  from: number
  to: number
  /** only changes by these users are marked (null: everyone) */
  by: ReadonlySet<string> | null
  /** only changes carrying all these attributions are marked (null: any) */
  attr?: AttrFilter
}

interface Attribution {
  insert?: string[]
  insertAt?: number
  delete?: string[]
  deleteAt?: number
  /** custom attributions of the insert and the delete, when they carried some */
  attributes?: { insert?: Attributes; delete?: Attributes }
}

export interface TextRun {
  insert: unknown
  attributes?: Record<string, unknown>
  attribution?: Attribution
}

interface ElementNode {
  element: string
  attributes?: Record<string, unknown>
  attribution?: Attribution
  children: ChangeNode[]
}

export type ChangeNode = TextRun | ElementNode

interface RootChange {
  type: RootKind
  delta: ChangeNode[]
}

export interface Changeset {
  inserted: number
  deleted: number
  by: string[]
  roots: Record<string, RootChange>
}

const userOf = (m: Mark) => (m.user === null ? '' : whoOf(m.user).user)
const attributesOf = (m: Mark) => (m.user === null ? undefined : whoOf(m.user).attributes)

/** A run's marks in the window; null when the run is not shown (not there yet, or gone before). */
function classify(r: Run, w: Window): Attribution | null {
  if (r.ins.at > w.to) return null
  const byOk = (m: Mark) => (w.by === null && !w.attr) || (m.user !== null && whoMatches(m.user, w.by, w.attr ?? null))
  const a: Attribution = {}
  if (r.del && r.del.at <= w.to) {
    if (r.del.at < w.from || !byOk(r.del)) return null
    a.delete = [userOf(r.del)]
    a.deleteAt = r.del.at
    const attributes = attributesOf(r.del)
    if (attributes) a.attributes = { delete: attributes }
  }
  if (r.ins.at >= w.from && byOk(r.ins)) {
    a.insert = [userOf(r.ins)]
    a.insertAt = r.ins.at
    const attributes = attributesOf(r.ins)
    if (attributes) a.attributes = { insert: attributes, ...a.attributes }
  }
  return a
}

export function changeset(h: DocHistory, w: Window): Changeset {
  const out: Changeset = { inserted: 0, deleted: 0, by: [], roots: {} }
  const users = new Set<string>()
  const walker = new Walker(h, w, (a, n) => {
    if (a.insert) ((out.inserted += n), users.add(a.insert[0]!))
    if (a.delete) ((out.deleted += n), users.add(a.delete[0]!))
  })
  for (const [name, type] of rootsOf(h.doc)) {
    const kind = kindIncludingDeleted(type)
    if (kind === 'empty') continue
    out.roots[name] = { type: kind, delta: kind === 'map' ? walker.mapDelta(type) : walker.seqDelta(type) }
  }
  out.by = [...users].sort()
  return out
}

class Walker {
  constructor(
    private readonly h: DocHistory,
    private readonly w: Window,
    private readonly count: (a: Attribution, n: number) => void,
  ) {}

  seqDelta(type: AnyType, out: ChangeNode[] = []): ChangeNode[] {
    // formatting in force at `to`; replaced (never mutated) on change, so runs compare it by reference
    let attrs: Record<string, unknown> | undefined
    for (const item of itemsOf(type)) {
      const c = item.content
      if (c instanceof Y.ContentFormat) {
        for (const r of runsOf(item, this.h.index)) {
          if (!visibleAt(r, this.w.to)) continue
          const next: Record<string, unknown> = { ...attrs }
          if (c.value === null) delete next[c.key]
          else next[c.key] = c.value
          attrs = Object.keys(next).length ? next : undefined
        }
        continue
      }
      for (const r of runsOf(item, this.h.index)) {
        const a = classify(r, this.w)
        const content = a && contentOf(r)
        if (!a || !content) continue
        if ('type' in content) {
          const t = content.type
          if (t instanceof Y.XmlText) this.seqDelta(t, out)
          else if (t instanceof Y.XmlElement) {
            this.count(a, 1)
            out.push(node(t.nodeName, this.mapValues(t), a, this.seqDelta(t)))
          } else {
            this.count(a, 1)
            push(out, { insert: t.toJSON() }, attrs, a)
          }
          continue
        }
        this.count(a, r.len)
        const insert = 'text' in content ? content.text : 'values' in content ? content.values : content.embed
        push(out, { insert }, attrs, a)
      }
    }
    return out
  }

  /** A map root as `{insert: {key: value}}` runs, one per key, marked like text runs. */
  mapDelta(type: AnyType): ChangeNode[] {
    const out: ChangeNode[] = []
    for (const key of [...type._map.keys()].sort()) {
      const shown = this.mapItem(type, key)
      if (!shown) continue
      this.count(shown.a, 1)
      push(out, { insert: { [key]: shown.value } }, undefined, shown.a)
    }
    return out
  }

  /** Attributes of an element (or entries of a map) as they were at `to`. */
  private mapValues(type: AnyType): Record<string, unknown> {
    const values: Record<string, unknown> = {}
    for (const key of [...type._map.keys()].sort()) {
      const shown = this.mapItem(type, key)
      if (shown && !shown.a.delete) values[key] = shown.value
    }
    return values
  }

  private mapItem(type: AnyType, key: string): { value: unknown; a: Attribution } | null {
    // the newest value of the key shown in the window: the one alive at `to`, or one deleted in it
    for (let item: Y.Item | null = type._map.get(key) ?? null; item !== null; item = item.left) {
      const r = runsOf(item, this.h.index).next().value
      const a = r ? classify(r, this.w) : null
      const content = r && a ? contentOf(r) : null
      if (!a || !content) continue
      const value =
        'values' in content
          ? content.values[0]
          : 'type' in content
            ? content.type.toJSON()
            : 'embed' in content
              ? content.embed
              : content.text
      return { value, a }
    }
    return null
  }
}

function node(
  element: string,
  attributes: Record<string, unknown>,
  a: Attribution,
  children: ChangeNode[],
): ElementNode {
  const n: ElementNode = { element, children }
  if (Object.keys(attributes).length) n.attributes = attributes
  if (a.insert || a.delete) n.attribution = a
  return n
}

/** Appends a run, merging it into the previous one when both are text with equal marks. */
function push(out: ChangeNode[], run: TextRun, attrs: Record<string, unknown> | undefined, a: Attribution): void {
  if (attrs) run.attributes = attrs
  if (a.insert || a.delete) run.attribution = a
  const prev = out[out.length - 1]
  if (
    prev &&
    'insert' in prev &&
    typeof prev.insert === 'string' &&
    typeof run.insert === 'string' &&
    sameMarks(prev, run)
  ) {
    prev.insert += run.insert
    return
  }
  out.push(run)
}

function sameMarks(a: TextRun, b: TextRun): boolean {
  if (a.attributes !== b.attributes && !sameAttributes(a.attributes, b.attributes)) return false
  const x = a.attribution
  const y = b.attribution
  if (!x || !y) return x === y
  return (
    x.insert?.[0] === y.insert?.[0] &&
    x.insertAt === y.insertAt &&
    x.delete?.[0] === y.delete?.[0] &&
    x.deleteAt === y.deleteAt &&
    (x.attributes === y.attributes || JSON.stringify(x.attributes) === JSON.stringify(y.attributes))
  )
}

function sameAttributes(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  if (!a || !b) return a === b
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]))
}
