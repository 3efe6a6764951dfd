// Markdown (CommonMark with GFM tables, task lists and strikethrough) as a ProseMirror JSON
// document, named in the vocabulary of the document it goes into. Parsed by markdown-it (about
// 15 MB/s here; the unified parser read 1 MB/s); any text is valid Markdown, so this refuses only
// nesting past MAX_DEPTH, whole (depth.ts): markdown-it would otherwise drop everything below its
// own limit without a word. Raw HTML stays as its text.
import MarkdownIt from 'markdown-it'
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs'
import type Token from 'markdown-it/lib/token.mjs'
import { contentTooDeep, MAX_DEPTH } from './depth.js'
import { inlineNodes, LINE_EDGE } from './markdown-inline.js'
import { NODE_NAMES, type PmNode, type Vocabulary } from './pm-json.js'

// Blocks may nest one level past MAX_DEPTH, so that markdown-it never cuts what the Builder would
// accept: where it stops, the Builder has already seen a container too deep and refused. Inline
// nesting (links in brackets) makes no document depth, and the inline parser's work grows with its
// limit times the length of a run of `[` or `![`, so inlines keep markdown-it's CommonMark limit.
const INLINE_NESTING = 20
function markdownIt(maxNesting: number): MarkdownIt {
  const md = new MarkdownIt('commonmark').enable(['table', 'strikethrough'])
  Object.assign(md.options, { maxNesting }) // read by markdown-it, not declared by @types/markdown-it
  return md
}
const inlineParser = markdownIt(INLINE_NESTING)
const parser = markdownIt(MAX_DEPTH + 1)
// markdown-it's own normalize replaces every line ending with '\n', a new string even when none is
// '\r': 20 ms of a 1 MB write. Text without '\r' or NUL is left as it is; the rest is normalized
// as CommonMark says (CR and CRLF end lines, NUL is U+FFFD).
parser.core.ruler.at('normalize', (state: StateCore) => {
  if (state.src.includes('\r') || state.src.includes('\0'))
    state.src = state.src.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD')
})
parser.core.ruler.at('inline', (state: StateCore) => {
  for (const t of state.tokens)
    if (t.type === 'inline') inlineParser.inline.parse(t.content, inlineParser, state.env, (t.children ??= []))
})

/** Where the last top-level block of `markdown` starts (0 when it has one block or none). */
export function lastBlockStart(markdown: string): number {
  let line = 0
  // block rules alone: where blocks start does not depend on their inline content
  for (const t of blockTokens(markdown)) if (t.level === 0 && t.nesting >= 0 && t.map) line = t.map[0]
  let at = 0
  for (let i = 0; i < line; i++) at = markdown.indexOf('\n', at) + 1
  return at
}

function blockTokens(markdown: string): Token[] {
  const tokens: Token[] = []
  parser.block.parse(markdown, parser, {}, tokens)
  return tokens
}

export function markdownToPm(markdown: string, vocabulary: Vocabulary): PmNode {
  return { type: 'doc', content: new Builder(NODE_NAMES[vocabulary]).blocks(parser.parse(markdown, {})) }
}

const TASK = /^\[([ xX])\][ \t]/

class Builder {
  private readonly root: PmNode = { type: 'doc', content: [] }
  private readonly stack: PmNode[] = [this.root]

  constructor(private readonly n: (typeof NODE_NAMES)[Vocabulary]) {}

  /** Every node is added here at depth `stack.length` (the doc is 0): an element past MAX_DEPTH is refused. */
  private add(node: PmNode): void {
    if (node.type !== 'text' && this.stack.length > MAX_DEPTH) throw contentTooDeep()
    ;(this.stack[this.stack.length - 1]!.content ??= []).push(node)
  }

  private open(node: PmNode): void {
    this.add(node)
    this.stack.push(node)
  }

  private close(): PmNode {
    const node = this.stack.pop()!
    if (node.content?.length === 0) delete node.content
    return node
  }

  /**
   * markdown-it hides the paragraphs of a tight list's items; a shown one makes its list loose,
   * stored as `tight: false` (prosemirror-markdown's attribute; a list without it is tight).
   */
  private loosen(t: Token): void {
    const item = this.stack[this.stack.length - 1]
    const list = this.stack[this.stack.length - 2]
    if (t.hidden || !list || item?.type !== this.n.listItem) return
    list.attrs = { ...list.attrs, tight: false }
  }

  blocks(tokens: Token[]): PmNode[] {
    for (const t of tokens) {
      switch (t.type) {
        case 'paragraph_open':
          this.loosen(t)
          this.open({ type: 'paragraph' })
          break
        case 'heading_open':
          this.open({ type: 'heading', attrs: { level: Number(t.tag.slice(1)) } })
          break
        case 'blockquote_open':
          this.open({ type: 'blockquote' })
          break
        case 'bullet_list_open':
          this.open({ type: this.n.bulletList })
          break
        case 'ordered_list_open': {
          const start = Number(t.attrGet('start') ?? 1)
          this.open({ type: this.n.orderedList, attrs: this.n === NODE_NAMES.basic ? { order: start } : { start } })
          break
        }
        case 'list_item_open':
          this.open({ type: this.n.listItem })
          break
        case 'bullet_list_close':
          tasks(this.close())
          break
        case 'list_item_close': {
          const item = this.close()
          if (!item.content) {
            if (this.stack.length + 1 > MAX_DEPTH) throw contentTooDeep()
            item.content = [{ type: 'paragraph' }]
          }
          break
        }
        case 'table_open':
          this.open({ type: 'table' })
          break
        case 'tr_open':
          this.open({ type: this.n.tableRow })
          break
        case 'th_open':
        case 'td_open':
          this.open({ type: t.type === 'th_open' ? this.n.tableHeader : this.n.tableCell, ...alignOf(t) })
          this.open({ type: 'paragraph' })
          break
        case 'th_close':
        case 'td_close':
          this.close()
          this.close()
          break
        case 'fence':
        case 'code_block': {
          const text = t.content.replace(/\n$/, '')
          // The info string as written is escaped Markdown (`foo\+bar`, `f&ouml;`): the language is its text.
          const language = parser.utils.unescapeAll(t.info).trim().split(/\s+/)[0] || null
          this.add({
            type: this.n.codeBlock,
            attrs: { language },
            ...(text ? { content: [{ type: 'text', text }] } : {}),
          })
          break
        }
        case 'hr':
          this.add({ type: this.n.horizontalRule })
          break
        case 'html_block':
          for (const text of htmlParagraphs(t.content))
            this.add({ type: 'paragraph', content: [{ type: 'text', text }] })
          break
        case 'inline':
          for (const node of inlineNodes(t.children ?? [], this.n)) this.add(node)
          break
        case 'thead_open':
        case 'thead_close':
        case 'tbody_open':
        case 'tbody_close':
          break
        default:
          if (t.nesting === -1) this.close()
      }
    }
    return this.root.content ?? []
  }
}

/** A GFM column's alignment, on each of its cells (`align`, as table extensions of editors name it). */
function alignOf(cell: Token): { attrs?: { align: string } } {
  const align = /text-align:(left|center|right)/.exec(cell.attrGet('style') ?? '')?.[1]
  return align ? { attrs: { align } } : {}
}

/**
 * Raw HTML is kept as its text (no ProseMirror schema holds it as HTML), as a paragraph would read
 * it: split at blank lines, without the white space at the ends of its lines, which a paragraph
 * drops (printing it would take a character reference per line).
 */
function htmlParagraphs(html: string): string[] {
  return html
    .split(/\n[ \t]*\n/)
    .map((p) => p.trim().replace(LINE_EDGE, '\n'))
    .filter((p) => p !== '')
}

/** A bullet list whose items start with `[ ]` or `[x]` is a task list (GFM). */
function tasks(list: PmNode): void {
  const items = list.content ?? []
  const checks = items.map((item) => {
    const first = item.content?.[0]?.content?.[0]
    const m = item.content?.[0]?.type === 'paragraph' && first?.type === 'text' ? TASK.exec(first.text ?? '') : null
    return m ? m[1] !== ' ' : null
  })
  if (checks.every((c) => c === null)) return
  list.type = 'taskList'
  items.forEach((item, i) => {
    item.type = 'taskItem'
    item.attrs = { checked: checks[i] === true }
    const para = item.content![0]!
    const first = para.content?.[0]
    if (checks[i] !== null && first) {
      first.text = first.text!.replace(TASK, '')
      if (!first.text) para.content!.shift()
      if (para.content?.length === 0) delete para.content
    }
  })
}
