// The Markdown view of a document kept warm: each top-level block's Markdown remembered, and
// printed again only when an update touched it (or, for a list, when the block before it changed:
// a list's bullet depends on the row of lists before it). The view is the blocks' Markdown joined
// by blank lines, which is how the whole-document printer joins a root's children, so it reads as
// a whole read. First built from one whole printing; after that, an edit of one paragraph of a
// 1 MB document prints one paragraph.
import * as Y from 'yjs'
import { blockIdOf } from './block-id.js'
import { elementNode } from './fragment-read.js'
import { block } from './markdown-out.js'
import { printWithSpans } from './markdown-spans.js'
import { pieced, type Lined } from './parts-lines.js'
import { infoOf, placed, type BlockInfo } from './parts-model.js'
import type { PmNode } from './pm-json.js'
import { liveItems } from '../ydoc/roots.js'

interface Printed {
  /** the block's Markdown; null when it prints nothing (an empty paragraph) */
  text: string | null
  lines: number
  /** where each line after the first starts in `text` */
  breaks: number[]
  info: Omit<BlockInfo, 'line' | 'end'> | null
  /** for a list: the block printed before it, and that block's text, when it was printed */
  after: Y.Item | null
  afterText: string | null
  isList: boolean
}

const breaksOf = (s: string) => {
  const out: number[] = []
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) out.push(i + 1)
  return out
}

const elementOf = (item: Y.Item) =>
  item.content instanceof Y.ContentType && item.content.type instanceof Y.XmlElement ? item.content.type : null

export class WarmView {
  private readonly printed = new Map<Y.Item, Printed>()
  private readonly dirty = new Set<Y.Item>()
  private model: Lined | null = null
  private readonly observer = (events: Y.YEvent<Y.AbstractType<unknown>>[]) => {
    this.model = null
    for (const e of events) {
      const top = this.topOf(e.target)
      if (top) this.dirty.add(top)
    }
  }

  constructor(
    readonly name: string,
    private readonly fragment: Y.XmlFragment,
  ) {
    fragment.observeDeep(this.observer)
    this.firstPrinting()
  }

  destroy(): void {
    this.fragment.unobserveDeep(this.observer)
  }

  /** The top-level child of the fragment holding `t` (null: the fragment itself). */
  private topOf(t: Y.AbstractType<unknown>): Y.Item | null {
    let item = t._item
    while (item && item.parent !== this.fragment) item = (item.parent as Y.AbstractType<unknown>)._item
    return item
  }

  /** One whole printing, cut per block: the view starts out byte for byte the whole read. */
  private firstPrinting(): void {
    const items = [...liveItems(this.fragment)].filter((i) => elementOf(i))
    const nodes = items.map((i) => elementNode(elementOf(i)!))
    const { markdown, spans } = printWithSpans(nodes)
    const starts = [0]
    for (let i = markdown.indexOf('\n'); i >= 0; i = markdown.indexOf('\n', i + 1)) starts.push(i + 1)
    let prev: Y.Item | null = null
    let prevText: string | null = null
    items.forEach((item, i) => {
      const span = spans[i]
      const text = span
        ? markdown.slice(starts[span[0] - 1], span[1] < starts.length ? starts[span[1]]! - 1 : markdown.length)
        : null
      this.remember(item, nodes[i]!, text, prev, prevText)
      if (text !== null) [prev, prevText] = [item, text]
    })
  }

  private remember(
    item: Y.Item,
    node: PmNode,
    text: string | null,
    prev: Y.Item | null,
    prevText: string | null,
  ): Printed {
    const breaks = text === null ? [] : breaksOf(text)
    const p: Printed = {
      text,
      lines: text === null ? 0 : breaks.length + 1,
      breaks,
      info: text === null ? null : infoOf(blockIdOf(item.id), node),
      after: prev,
      afterText: prevText,
      isList: block(node)[0]?.type === 'list',
    }
    this.printed.set(item, p)
    return p
  }

  /** A block printed alone, after the blocks its printing depends on (the row of lists before it). */
  private printAgain(item: Y.Item, prev: Y.Item | null, prevText: string | null): Printed {
    const node = elementNode(elementOf(item)!)
    const lead: Y.Item[] = []
    if (block(node)[0]?.type === 'list') {
      for (let l = item.left; l !== null; l = l.left) {
        if (l.deleted || !elementOf(l)) continue
        const p = this.printed.get(l)
        if (!p || p.text === null) continue
        lead.unshift(l)
        if (!p.isList) break
      }
    }
    const { markdown, spans } = printWithSpans([...lead.map((l) => elementNode(elementOf(l)!)), node])
    const span = spans[lead.length]
    let text: string | null = null
    if (span) {
      const lines = markdown.split('\n')
      text = lines.slice(span[0] - 1, span[1]).join('\n')
    }
    return this.remember(item, node, text, prev, prevText)
  }

  /**
   * Blocks that are not lists print the same wherever they stand: the changed ones print in one
   * go (a printing's fixed cost is a few ms, and a catch-up of 20 typed paragraphs made 20).
   */
  private printChanged(): void {
    const items: Y.Item[] = []
    const nodes: PmNode[] = []
    for (const item of this.dirty) {
      if (item.deleted || !elementOf(item)) continue
      const node = elementNode(elementOf(item)!)
      if (block(node)[0]?.type === 'list') continue
      items.push(item)
      nodes.push(node)
    }
    if (items.length < 2) return
    const { markdown, spans } = printWithSpans(nodes)
    const lines = markdown.split('\n')
    items.forEach((item, i) => {
      const span = spans[i]
      const old = this.printed.get(item)
      this.remember(
        item,
        nodes[i]!,
        span ? lines.slice(span[0] - 1, span[1]).join('\n') : null,
        old?.after ?? null,
        old?.afterText ?? null,
      )
      this.dirty.delete(item)
    })
  }

  /**
   * The view now: the blocks' Markdown, printed again where something changed, with its line
   * starts counted from the blocks' own (never a scan of the whole text). Its text stays in
   * pieces, the blocks' own strings, until something reads it whole (parts-lines.ts).
   */
  view(): Lined {
    if (this.model && !this.dirty.size) return this.model
    this.printChanged()
    const texts: string[] = []
    const at: number[] = []
    const blocks: BlockInfo[] = []
    let line = 1
    let prev: Y.Item | null = null
    let prevText: string | null = null
    const live = new Set<Y.Item>()
    const starts = [0]
    let offset = 0
    // a plain walk of the items: a generator's step allocates, and this runs on every change
    for (let item = this.fragment._start; item !== null; item = item.right) {
      if (item.deleted || !elementOf(item)) continue
      live.add(item)
      let p = this.printed.get(item)
      const stale = !p || this.dirty.has(item) || (p.isList && (p.after !== prev || p.afterText !== prevText))
      if (stale) p = this.printAgain(item, prev, prevText)
      else if (p!.after !== prev || p!.afterText !== prevText) Object.assign(p!, { after: prev, afterText: prevText })
      if (p!.text === null) continue
      if (texts.length) {
        line += 1 // the blank line between blocks
        starts.push(offset + 1, offset + 2)
        at.push(offset)
        texts.push('\n\n')
        offset += 2
      }
      for (const b of p!.breaks) starts.push(offset + b)
      at.push(offset)
      texts.push(p!.text)
      offset += p!.text.length
      blocks.push(placed(p!.info!, line, line + p!.lines - 1))
      line += p!.lines
      ;[prev, prevText] = [item, p!.text]
    }
    for (const item of this.printed.keys()) if (!live.has(item)) this.printed.delete(item)
    this.dirty.clear()
    if (texts.length) {
      at.push(offset)
      texts.push('\n') // the final newline
      starts.push(offset + 1)
    }
    this.model = pieced({ root: this.name, blocks, starts, lines: starts.length - 1 }, texts, at)
    return this.model
  }
}
