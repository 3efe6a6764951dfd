// A run of blocks as it reads now, and an edit's replacements carried to it from the base's text:
// inside one block against that block's own text, found by id; across blocks over the whole run.
import diff from 'fast-diff'
import * as Y from 'yjs'
import { blockIdOf } from './block-id.js'
import type { Rep, Run } from './edit-locate.js'
import { elementNode } from './fragment-read.js'
import { block } from './markdown-out.js'
import { printWithSpans } from './markdown-spans.js'

/** What a child prints as: its first Markdown block's type ('list', 'paragraph', ...), null for nothing. */
const printsAs = (item: Y.Item) =>
  item.content instanceof Y.ContentType && item.content.type instanceof Y.XmlElement
    ? (block(elementNode(item.content.type))[0]?.type ?? null)
    : null
const prints = (item: Y.Item) => printsAs(item) !== null

/**
 * The blocks before `item` its printing depends on: a list takes another bullet than the list
 * right before it, which took its own from the one before, so the whole row of lists before it
 * and the block before that row.
 */
function before(item: Y.Item): Y.Item[] {
  const out: Y.Item[] = []
  for (let l = item.left; l !== null; l = l.left) {
    if (l.deleted) continue
    const kind = printsAs(l)
    if (kind === null) continue
    out.unshift(l)
    if (kind !== 'list') break
  }
  return out
}

function nextPrinting(item: Y.Item): Y.Item | null {
  for (let r = item.right; r !== null; r = r.right) if (!r.deleted && prints(r)) return r
  return null
}

export function* between(first: Y.Item, last: Y.Item): Generator<Y.Item> {
  for (let item: Y.Item | null = first; item !== null; item = item.right) {
    if (!item.deleted && item.content instanceof Y.ContentType && item.content.type instanceof Y.XmlElement) yield item
    if (item === last) return
  }
}

/** A run as it reads now: its Markdown, and where each block that prints lies in it, by id. */
export interface Printed {
  text: string
  ranges: Map<string, [number, number]>
}

/**
 * The Markdown of blocks `first`..`last` as the whole view prints them: printed with the blocks
 * before it that its printing depends on and the block after, then cut to the run's own lines.
 */
export function runPrinted(first: Y.Item, last: Y.Item): Printed {
  const lead = before(first)
  const after = nextPrinting(last)
  const own = [...between(first, last)]
  const items = [...lead, ...own, ...(after ? [after] : [])]
  const nodes = items.map((i) => elementNode((i.content as Y.ContentType).type as Y.XmlElement))
  const { markdown, spans } = printWithSpans(nodes)
  const starts = [0]
  for (let i = markdown.indexOf('\n'); i >= 0; i = markdown.indexOf('\n', i + 1)) starts.push(i + 1)
  const lineFrom = (line: number) => starts[line - 1]!
  const lineTo = (line: number) => (line < starts.length ? starts[line]! - 1 : markdown.length)
  const ownSpans = spans.slice(lead.length, lead.length + own.length)
  const printed = ownSpans.filter((s) => s !== null)
  if (!printed.length) return { text: '', ranges: new Map() }
  const from = lineFrom(printed[0]![0])
  const ranges = new Map<string, [number, number]>()
  ownSpans.forEach((s, k) => {
    if (s) ranges.set(blockIdOf(own[k]!.id), [lineFrom(s[0]) - from, lineTo(s[1]) - from])
  })
  return { text: markdown.slice(from, lineTo(printed[printed.length - 1]![1])), ranges }
}

export const runText = (first: Y.Item, last: Y.Item): string => runPrinted(first, last).text

/**
 * The replacements moved from the base's text of a run to today's: each must lie in text both
 * share (an insertion at either end of the run stays at that end). Null when one's text changed.
 */
function carried(base: string, now: string, reps: readonly Rep[]): Rep[] | null {
  if (base === now) return [...reps]
  const equal: { b: number; n: number; len: number }[] = []
  let b = 0
  let n = 0
  for (const [op, s] of diff(base, now)) {
    if (op === diff.EQUAL) equal.push({ b, n, len: s.length })
    if (op !== diff.INSERT) b += s.length
    if (op !== diff.DELETE) n += s.length
  }
  const out: Rep[] = []
  for (const r of reps) {
    if (r.from === r.to && r.from === 0) out.push({ ...r })
    else if (r.from === r.to && r.from === base.length) out.push({ ...r, from: now.length, to: now.length })
    else {
      const e = equal.find((e) => e.b <= r.from && r.to <= e.b + e.len)
      if (!e) return null
      out.push({ from: e.n + r.from - e.b, to: e.n + r.to - e.b, text: r.text })
    }
  }
  return out
}

/**
 * The run's replacements carried to its text now. One that lies inside a single block is carried
 * against that block's own text, found by its id: blocks inserted between the run's blocks since
 * the base (a person's new paragraph, even one reading exactly like an edited block) are never
 * mistaken for it. One that spans blocks is carried across the whole run's text.
 */
export function carriedRun(run: Run, now: Printed): Rep[] | null {
  if (run.text === now.text) return [...run.reps]
  const out: Rep[] = []
  const across: Rep[] = []
  for (const r of run.reps) {
    const b = run.blocks.find((b) => b.from <= r.from && r.to <= b.to)
    if (!b) {
      across.push(r)
      continue
    }
    const at = now.ranges.get(b.id)
    if (!at) return null
    const moved = carried(run.text.slice(b.from, b.to), now.text.slice(at[0], at[1]), [
      { from: r.from - b.from, to: r.to - b.from, text: r.text },
    ])
    if (!moved) return null
    out.push({ from: moved[0]!.from + at[0], to: moved[0]!.to + at[0], text: r.text })
  }
  if (across.length) {
    const moved = carried(run.text, now.text, across)
    if (!moved) return null
    out.push(...moved)
  }
  return out
}
