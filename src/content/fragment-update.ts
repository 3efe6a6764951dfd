// The smallest change that turns an XML root into a ProseMirror JSON document. At each level the
// children are aligned by content (fast-diff over one symbol per distinct child), so unchanged
// blocks keep their items; in a changed stretch, children of the same kind are paired in order and
// edited in place (attributes, then their own children, text by text-update.ts), the rest deleted
// or inserted. A person's concurrent edit to a block the change leaves alone is never touched, and
// an insertion that repeats what others inserted at the same place since the base is left out
// (concurrent.ts). Which children pair is pair-up.ts.
import diff from 'fast-diff'
import * as Y from 'yjs'
import { elementNode, textNodes } from './fragment-read.js'
import { project, type Lens } from './lens.js'
import { pairUp, type Kid, type YKid } from './pair-up.js'
import type { Concurrent } from './concurrent.js'
import type { PmMark, PmNode } from './pm-json.js'
import { liveItems } from '../ydoc/roots.js'
import { stableJson } from './stable-json.js'
import { updateText, type Attrs, type Counts } from './text-update.js'

function marksToAttrs(marks: readonly PmMark[] | undefined): Attrs {
  const attrs: Attrs = {}
  for (const m of marks ?? []) attrs[m.type] = m.attrs ?? {}
  return attrs
}

/** A node's attrs as Yjs keeps them: null means absent. */
function storedAttrs(node: PmNode): Attrs {
  const out: Attrs = {}
  for (const [k, v] of Object.entries(node.attrs ?? {})) if (v !== null && v !== undefined) out[k] = v
  return out
}

function kidsOf(content: readonly PmNode[] | undefined): Kid[] {
  const kids: Kid[] = []
  for (const node of content ?? []) {
    if (node.type !== 'text') {
      kids.push({ kind: 'el', node })
      continue
    }
    if (!node.text) continue
    const run = { text: node.text, attrs: marksToAttrs(node.marks) }
    const last = kids[kids.length - 1]
    if (last?.kind !== 'text') kids.push({ kind: 'text', runs: [run] })
    else if (stableJson(last.runs[last.runs.length - 1]!.attrs) === stableJson(run.attrs))
      last.runs[last.runs.length - 1]!.text += run.text
    else last.runs.push(run)
  }
  return kids
}

/** A child as fragment-read.ts reads it back, marks in a fixed order: what alignment compares. */
function nodesOf(k: Kid): PmNode[] {
  if (k.kind === 'text') {
    return k.runs.map((r) => {
      const marks = Object.entries(r.attrs).map(([type, a]): PmMark =>
        a && typeof a === 'object' && Object.keys(a).length ? { type, attrs: a as Attrs } : { type },
      )
      return marks.length ? { type: 'text', text: r.text, marks } : { type: 'text', text: r.text }
    })
  }
  const n: PmNode = { type: k.node.type }
  const attrs = storedAttrs(k.node)
  if (Object.keys(attrs).length) n.attrs = attrs
  const content = kidsOf(k.node.content).flatMap(nodesOf)
  if (content.length) n.content = content
  return [n]
}

function canon(n: PmNode): PmNode {
  const out: PmNode = { ...n }
  if (n.marks) out.marks = [...n.marks].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0))
  if (n.content) out.content = n.content.map(canon)
  return out
}

const readBack = (y: YKid) => (y instanceof Y.XmlText ? textNodes(y) : [elementNode(y)])
const signature = (lens: Lens, nodes: PmNode[]) => stableJson(nodes.map((n) => canon(project(lens, n))))

/** One character per distinct signature, so fast-diff aligns children (or blocks) as it aligns text. */
export class Symbols {
  private map = new Map<string, string>()
  of(sig: string): string {
    let s = this.map.get(sig)
    if (s === undefined) {
      let code = 0x100 + this.map.size
      if (code >= 0xd800) code += 0x800 // past the surrogates
      if (code > 0xffff) throw new RangeError('too many distinct blocks at one level')
      s = String.fromCharCode(code)
      this.map.set(sig, s)
    }
    return s
  }
}

function countKid(k: Kid): number {
  if (k.kind === 'text') return k.runs.reduce((n, r) => n + r.text.length, 0)
  return 1 + kidsOf(k.node.content).reduce((n, c) => n + countKid(c), 0)
}

/** Characters and elements of a child, as an answer's `deleted` counts them. */
export function countY(y: YKid): number {
  if (y instanceof Y.XmlText) return y.length
  let n = 1
  for (const item of liveItems(y)) if (item.content instanceof Y.ContentType) n += countY(item.content.type as YKid)
  return n
}

function insertKid(parent: Y.XmlFragment | Y.XmlElement, at: number, k: Kid, counts: Counts): void {
  counts.inserted += countKid(k)
  if (k.kind === 'text') {
    const t = new Y.XmlText()
    parent.insert(at, [t])
    t.applyDelta(k.runs.map((r) => ({ insert: r.text, attributes: { ...r.attrs } })))
    return
  }
  const e = new Y.XmlElement(k.node.type)
  parent.insert(at, [e])
  for (const [key, v] of Object.entries(storedAttrs(k.node))) e.setAttribute(key, v as string)
  const inner = { inserted: 0, deleted: 0 } // counted whole above
  kidsOf(k.node.content).forEach((c, i) => insertKid(e, i, c, inner))
}

function updateElement(e: Y.XmlElement, node: PmNode, counts: Counts, lens: Lens, since: Concurrent | undefined): void {
  const current = e.getAttributes() as Attrs
  const target = storedAttrs(node)
  const keys = lens.attrKeys(node.type)
  for (const [k, v] of Object.entries(target)) {
    if ((keys === null || keys.includes(k)) && stableJson(current[k]) !== stableJson(v)) e.setAttribute(k, v as string)
  }
  for (const k of Object.keys(current)) {
    if (!(k in target) && k !== 'ychange' && (keys === null || keys.includes(k))) e.removeAttribute(k)
  }
  updateChildren(e, node.content, counts, lens, since)
}

/**
 * Edits the children of `parent` into `content`, as far as `lens` sees. Call inside one transaction.
 * `since`: what others inserted since the base (concurrent.ts); an insertion they already made at
 * the same place is left out.
 */
export function updateChildren(
  parent: Y.XmlFragment | Y.XmlElement,
  content: readonly PmNode[] | undefined,
  counts: Counts,
  lens: Lens,
  since?: Concurrent,
  window?: Window,
): void {
  // Children the lens does not see take no part: they stay where they are, untouched.
  const ys: YKid[] = []
  const yTexts: string[] = []
  const fromSyms: string[] = []
  const symbols = new Symbols()
  for (const item of window ? itemsOf(window) : liveItems(parent)) {
    if (!(item.content instanceof Y.ContentType)) continue
    const y = item.content.type as YKid
    const nodes = readBack(y)
    if (y instanceof Y.XmlElement && !lens.visible(nodes[0]!)) continue
    ys.push(y)
    yTexts.push(plainText(nodes))
    fromSyms.push(symbols.of(signature(lens, nodes)))
  }
  const ks = kidsOf(content).filter((k) => k.kind === 'text' || lens.visible(k.node))
  const kTexts = ks.map((k) => plainText(nodesOf(k)))
  const from = fromSyms.join('')
  const to = ks.map((k) => symbols.of(signature(lens, nodesOf(k)))).join('')
  if (from === to) return
  const echo = echoCheck(parent, since, lens)
  // Positions in the parent count every child, seen or not: `at(i)` is the index of ys[i], and
  // past the last, the index of the first child after the window (never one this call deletes).
  const after = window ? nextLive(window.last) : null
  const at = (i: number) => {
    const y = i < ys.length ? ys[i]! : ((after?.content as Y.ContentType | undefined)?.type ?? null)
    let n = 0
    for (const item of liveItems(parent)) {
      if (!(item.content instanceof Y.ContentType)) continue
      if (item.content.type === y) return n
      n++
    }
    return n
  }
  let yi = 0
  let ki = 0
  const changed = { del: 0, ins: 0 }
  const flush = () => {
    if (changed.del || changed.ins) {
      const pairs = pairUp(
        ys.slice(yi, yi + changed.del),
        yTexts.slice(yi, yi + changed.del),
        ks.slice(ki, ki + changed.ins),
        kTexts.slice(ki, ki + changed.ins),
      )
      rewrite(parent, at, yi, ys.slice(yi, yi + changed.del), ks.slice(ki, ki + changed.ins), pairs, {
        counts,
        lens,
        since,
        echo,
      })
    }
    yi += changed.del
    ki += changed.ins
    changed.del = changed.ins = 0
  }
  for (const [op, s] of diff(from, to)) {
    if (op === diff.DELETE) changed.del += s.length
    else if (op === diff.INSERT) changed.ins += s.length
    else {
      flush()
      yi += s.length
      ki += s.length
    }
  }
  flush()
}

/** A run of a parent's children, `first` to `last` inclusive: an edit of a part leaves the rest unread. */
export interface Window {
  first: Y.Item
  last: Y.Item
}

function* itemsOf(w: Window): Generator<Y.Item> {
  for (let item: Y.Item | null = w.first; item !== null; item = item.right) {
    if (!item.deleted) yield item
    if (item === w.last) return
  }
}

/** The first live child with content after `item`. */
export function nextLive(item: Y.Item): Y.Item | null {
  for (let r = item.right; r !== null; r = r.right) if (!r.deleted && r.content instanceof Y.ContentType) return r
  return null
}

function plainText(nodes: readonly PmNode[]): string {
  let s = ''
  for (const n of nodes) s += n.text ?? plainText(n.content ?? [])
  return s
}

interface Rewrite {
  counts: Counts
  lens: Lens
  since: Concurrent | undefined
  /** whether inserting a child at a live index repeats what others inserted there (then it is left out) */
  echo: ((index: number, k: Kid) => boolean) | null
}

/**
 * Whether inserting `k` at live index `index` of `parent` repeats a child others inserted at that
 * place since the base: one that reads the same (as far as `lens` sees), each of theirs matched
 * once. The place is the gap after the nearest child the base held live, left of the index; the
 * index of each is taken before the edit changes `parent`. Null when others inserted nothing here.
 */
function echoCheck(parent: Y.XmlFragment | Y.XmlElement, since: Concurrent | undefined, lens: Lens): Rewrite['echo'] {
  const theirs = since?.childGaps(parent)
  if (!theirs?.size) return null
  const baseIndex = new Map<Y.Item, number>()
  for (const item of liveItems(parent)) if (item.content instanceof Y.ContentType) baseIndex.set(item, baseIndex.size)
  const unmatched = new Map<number, (string | null)[]>()
  return (index, k) => {
    let left: Y.Item | null = null
    let i = 0
    for (const item of liveItems(parent)) {
      if (!(item.content instanceof Y.ContentType)) continue
      if (i++ === index) break
      left = item
    }
    while (left && !baseIndex.has(left)) left = left.left
    const gap = left ? baseIndex.get(left)! + 1 : 0
    const there = theirs.get(gap)
    if (!there) return false
    let sigs = unmatched.get(gap)
    if (!sigs) unmatched.set(gap, (sigs = there.map((t) => signature(lens, readBack(t as YKid)))))
    const j = sigs.indexOf(signature(lens, nodesOf(k)))
    if (j < 0) return false
    sigs[j] = null
    return true
  }
}

/**
 * A changed stretch: `ys` (from index `first` of the seen children) become `ks`. Children of the
 * same kind pair in order and are edited in place; the others are deleted, and the new ones
 * inserted where the stretch stands.
 */
function rewrite(
  parent: Y.XmlFragment | Y.XmlElement,
  at: (i: number) => number,
  first: number,
  ys: YKid[],
  ks: Kid[],
  pairs: [number, number][],
  o: Rewrite,
): void {
  const { counts, lens, since, echo } = o
  // New children go after the last seen child handled so far (or where the stretch begins).
  let insertAt = at(first)
  let y = 0
  let k = 0
  const upTo = (yEnd: number, kEnd: number) => {
    for (; y < yEnd; y++) {
      counts.deleted += countY(ys[y]!)
      const i = at(first + y)
      parent.delete(i, 1)
      insertAt = i
    }
    for (; k < kEnd; k++) if (!echo?.(insertAt, ks[k]!)) insertKid(parent, insertAt++, ks[k]!, counts)
  }
  for (const [py, pk] of pairs) {
    upTo(py, pk)
    const yk = ys[py]!
    const kk = ks[pk]!
    if (yk instanceof Y.XmlText)
      updateText(yk, (kk as Extract<Kid, { kind: 'text' }>).runs, counts, false, lens, since?.textGaps(yk))
    else updateElement(yk, (kk as Extract<Kid, { kind: 'el' }>).node, counts, lens, since)
    insertAt = at(first + py) + 1
    y = py + 1
    k = pk + 1
  }
  upTo(ys.length, ks.length)
}
