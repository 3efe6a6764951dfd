// The smallest change that turns an XML root into a ProseMirror JSON document. At each level the
// children are aligned by content (fast-diff over one symbol per distinct child), so unchanged
// blocks keep their items; in a changed stretch, children of the same kind are paired in order and
// edited in place (attributes, then their own children, text by text-update.ts), the rest deleted
// or inserted. A person's concurrent edit to a block the change leaves alone is never touched.
import diff from 'fast-diff'
import * as Y from 'yjs'
import { elementNode, textNodes } from './fragment-read.js'
import { project, type Lens } from './lens.js'
import type { PmMark, PmNode } from './pm-json.js'
import { liveItems } from './roots.js'
import { stableJson } from './stable-json.js'
import { updateText, type Attrs, type Counts, type TextRun } from './text-update.js'

/** A child as Yjs stores it: an element, or one Y.XmlText for a run of text nodes. */
type Kid = { kind: 'el'; node: PmNode } | { kind: 'text'; runs: TextRun[] }
type YKid = Y.XmlElement | Y.XmlText

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
    else if (stableJson(last.runs[last.runs.length - 1]!.attrs) === stableJson(run.attrs)) last.runs[last.runs.length - 1]!.text += run.text
    else last.runs.push(run)
  }
  return kids
}

/** A child as fragment-read.ts reads it back, marks in a fixed order: what alignment compares. */
function nodesOf(k: Kid): PmNode[] {
  if (k.kind === 'text') {
    return k.runs.map((r) => {
      const marks = Object.entries(r.attrs).map(([type, a]): PmMark => (a && typeof a === 'object' && Object.keys(a).length ? { type, attrs: a as Attrs } : { type }))
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

function countY(y: YKid): number {
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

function updateElement(e: Y.XmlElement, node: PmNode, counts: Counts, lens: Lens): void {
  const current = e.getAttributes() as Attrs
  const target = storedAttrs(node)
  const keys = lens.attrKeys(node.type)
  for (const [k, v] of Object.entries(target)) {
    if ((keys === null || keys.includes(k)) && stableJson(current[k]) !== stableJson(v)) e.setAttribute(k, v as string)
  }
  for (const k of Object.keys(current)) {
    if (!(k in target) && k !== 'ychange' && (keys === null || keys.includes(k))) e.removeAttribute(k)
  }
  updateChildren(e, node.content, counts, lens)
}

const compatible = (y: YKid, k: Kid) => (k.kind === 'text' ? y instanceof Y.XmlText : y instanceof Y.XmlElement && y.nodeName === k.node.type)

/** Edits the children of `parent` into `content`, as far as `lens` sees. Call inside one transaction. */
export function updateChildren(parent: Y.XmlFragment | Y.XmlElement, content: readonly PmNode[] | undefined, counts: Counts, lens: Lens): void {
  // Children the lens does not see take no part: they stay where they are, untouched.
  const ys: YKid[] = []
  const yTexts: string[] = []
  const fromSyms: string[] = []
  const symbols = new Symbols()
  for (const item of liveItems(parent)) {
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
  // Positions in the parent count every child, seen or not: `at(i)` is the index of ys[i].
  const at = (i: number) => {
    const y = i < ys.length ? ys[i]! : null
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
      const pairs = pairUp(ys.slice(yi, yi + changed.del), yTexts.slice(yi, yi + changed.del), ks.slice(ki, ki + changed.ins), kTexts.slice(ki, ki + changed.ins))
      rewrite(parent, at, yi, ys.slice(yi, yi + changed.del), ks.slice(ki, ki + changed.ins), pairs, counts, lens)
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

function plainText(nodes: readonly PmNode[]): string {
  let s = ''
  for (const n of nodes) s += n.text ?? plainText(n.content ?? [])
  return s
}

/** How alike two texts are, 0 to 1: their common start and end over the longer one. */
function likeness(a: string, b: string): number {
  const max = Math.max(a.length, b.length)
  if (max === 0) return 1
  const min = Math.min(a.length, b.length)
  let pre = 0
  while (pre < min && a.charCodeAt(pre) === b.charCodeAt(pre)) pre++
  let suf = 0
  while (suf < min - pre && a.charCodeAt(a.length - 1 - suf) === b.charCodeAt(b.length - 1 - suf)) suf++
  return (pre + suf) / max
}

/** Past this many pairs to weigh, a stretch pairs greedily in order instead. */
const MAX_WEIGHED = 40_000

/**
 * Which old children become which new ones in a changed stretch: an order-keeping matching of
 * children of the same kind that maximises how alike their texts are (so an edited paragraph is
 * edited in place, never a neighbour rewritten into it while it is deleted: a person's concurrent
 * edit inside it then survives). Every compatible pair weighs a little, so same-kind children
 * still pair when nothing is alike.
 */
function pairUp(ys: YKid[], yTexts: string[], ks: Kid[], kTexts: string[]): [number, number][] {
  const n = ys.length
  const m = ks.length
  if (n === 0 || m === 0) return []
  if (n * m > MAX_WEIGHED) {
    const pairs: [number, number][] = []
    let next = 0
    for (let k = 0; k < m; k++) {
      for (let y = next; y < n; y++) {
        if (compatible(ys[y]!, ks[k]!)) {
          pairs.push([y, k])
          next = y + 1
          break
        }
      }
    }
    return pairs
  }
  // best[i][j]: the best total for ys[i..] and ks[j..]
  const best = Array.from({ length: n + 1 }, () => new Float64Array(m + 1))
  const weight = (i: number, j: number) => (compatible(ys[i]!, ks[j]!) ? 0.01 + likeness(yTexts[i]!, kTexts[j]!) : -1)
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const w = weight(i, j)
      best[i]![j] = Math.max(best[i + 1]![j]!, best[i]![j + 1]!, w > 0 ? w + best[i + 1]![j + 1]! : -Infinity)
    }
  }
  const pairs: [number, number][] = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    const w = weight(i, j)
    if (w > 0 && best[i]![j] === w + best[i + 1]![j + 1]!) pairs.push([i++, j++])
    else if (best[i]![j] === best[i + 1]![j]) i++
    else j++
  }
  return pairs
}

/**
 * A changed stretch: `ys` (from index `first` of the seen children) become `ks`. Children of the
 * same kind pair in order and are edited in place; the others are deleted, and the new ones
 * inserted where the stretch stands.
 */
function rewrite(parent: Y.XmlFragment | Y.XmlElement, at: (i: number) => number, first: number, ys: YKid[], ks: Kid[], pairs: [number, number][], counts: Counts, lens: Lens): void {
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
    for (; k < kEnd; k++) insertKid(parent, insertAt++, ks[k]!, counts)
  }
  for (const [py, pk] of pairs) {
    upTo(py, pk)
    const yk = ys[py]!
    const kk = ks[pk]!
    if (yk instanceof Y.XmlText) updateText(yk, (kk as Extract<Kid, { kind: 'text' }>).runs, counts, false, lens)
    else updateElement(yk, (kk as Extract<Kid, { kind: 'el' }>).node, counts, lens)
    insertAt = at(first + py) + 1
    y = py + 1
    k = pk + 1
  }
  upTo(ys.length, ks.length)
}
