// Markdown (CommonMark with GFM tables, task lists and strikethrough) as a ProseMirror JSON
// document, named in the vocabulary of the document it goes into. Parsed by mdast-util-from-
// markdown; any text is valid Markdown, so this never refuses. Raw HTML stays as its text.
import type * as M from 'mdast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmFromMarkdown } from 'mdast-util-gfm'
import { gfm } from 'micromark-extension-gfm'
import { NODE_NAMES, type PmMark, type PmNode, type Vocabulary } from './pm-json.js'

type Names = (typeof NODE_NAMES)[Vocabulary]

export function markdownToPm(markdown: string, vocabulary: Vocabulary): PmNode {
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] })
  const definitions = new Map<string, M.Definition>()
  for (const node of tree.children) if (node.type === 'definition') definitions.set(node.identifier, node)
  const b = new Builder(NODE_NAMES[vocabulary], definitions)
  return { type: 'doc', content: b.blocks(tree.children) }
}

class Builder {
  constructor(
    private readonly n: Names,
    private readonly definitions: Map<string, M.Definition>,
  ) {}

  blocks(nodes: readonly M.RootContent[]): PmNode[] {
    return nodes.flatMap((node) => this.block(node))
  }

  private block(node: M.RootContent): PmNode[] {
    switch (node.type) {
      case 'paragraph':
        return [paragraph(this.inline(node.children, []))]
      case 'heading':
        return [{ type: 'heading', attrs: { level: node.depth }, content: this.inline(node.children, []) }]
      case 'blockquote':
        return [{ type: 'blockquote', content: this.blocks(node.children) }]
      case 'list':
        return [this.list(node)]
      case 'code': {
        const text = node.value ? [{ type: 'text', text: node.value }] : []
        return [{ type: this.n.codeBlock, attrs: { language: node.lang ?? null }, content: text }]
      }
      case 'thematicBreak':
        return [{ type: this.n.horizontalRule }]
      case 'table':
        return [this.table(node)]
      case 'html':
        return [paragraph(node.value ? [{ type: 'text', text: node.value }] : [])]
      case 'definition':
      case 'footnoteDefinition':
        return []
      default:
        // phrasing content at block level (never from the parser, but typed so)
        return 'children' in node || 'value' in node ? [paragraph(this.inline([node as M.PhrasingContent], []))] : []
    }
  }

  private list(node: M.List): PmNode {
    const task = node.children.some((item) => typeof item.checked === 'boolean')
    const items = node.children.map((item): PmNode => {
      const content = this.blocks(item.children)
      const body = content.length ? content : [paragraph([])]
      if (task) return { type: 'taskItem', attrs: { checked: item.checked === true }, content: body }
      return { type: this.n.listItem, content: body }
    })
    if (task) return { type: 'taskList', content: items }
    if (!node.ordered) return { type: this.n.bulletList, content: items }
    const start = node.start ?? 1
    return { type: this.n.orderedList, attrs: this.n === NODE_NAMES.basic ? { order: start } : { start }, content: items }
  }

  private table(node: M.Table): PmNode {
    const rows = node.children.map(
      (row, r): PmNode => ({
        type: this.n.tableRow,
        content: row.children.map((cell): PmNode => ({ type: r === 0 ? this.n.tableHeader : this.n.tableCell, content: [paragraph(this.inline(cell.children, []))] })),
      }),
    )
    return { type: 'table', content: rows }
  }

  private inline(nodes: readonly M.PhrasingContent[], marks: PmMark[]): PmNode[] {
    return nodes.flatMap((node) => this.phrasing(node, marks))
  }

  private phrasing(node: M.PhrasingContent, marks: PmMark[]): PmNode[] {
    const text = (value: string, extra: PmMark[] = []) => {
      const all = [...marks, ...extra]
      return value ? [all.length ? { type: 'text', text: value, marks: all } : { type: 'text', text: value }] : []
    }
    switch (node.type) {
      case 'text':
        return text(node.value)
      case 'inlineCode':
        return text(node.value, [{ type: 'code' }])
      case 'html':
        return text(node.value)
      case 'break':
        return [{ type: this.n.hardBreak }]
      case 'strong':
        return this.inline(node.children, [...marks, { type: this.n.bold }])
      case 'emphasis':
        return this.inline(node.children, [...marks, { type: this.n.italic }])
      case 'delete':
        return this.inline(node.children, [...marks, { type: 'strike' }])
      case 'link':
        return this.inline(node.children, [...marks, linkMark(node.url, node.title)])
      case 'linkReference': {
        const def = this.definitions.get(node.identifier)
        return def ? this.inline(node.children, [...marks, linkMark(def.url, def.title)]) : this.inline(node.children, marks)
      }
      case 'image':
        return [image(node.url, node.alt, node.title)]
      case 'imageReference': {
        const def = this.definitions.get(node.identifier)
        return def ? [image(def.url, node.alt, def.title)] : text(node.alt ?? '')
      }
      case 'footnoteReference':
        return text(`[^${node.label ?? node.identifier}]`)
      default:
        return []
    }
  }
}

const paragraph = (content: PmNode[]): PmNode => (content.length ? { type: 'paragraph', content } : { type: 'paragraph' })

const linkMark = (href: string, title: string | null | undefined): PmMark => ({ type: 'link', attrs: title ? { href, title } : { href } })

const image = (src: string, alt: string | null | undefined, title: string | null | undefined): PmNode => ({
  type: 'image',
  attrs: { src, ...(alt ? { alt } : {}), ...(title ? { title } : {}) },
})
