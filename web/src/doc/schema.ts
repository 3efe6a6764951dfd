// The editor's schema: the block and inline nodes common ProseMirror and Tiptap documents use, under
// both naming styles, so y-prosemirror can map their Y.XmlElements. y-prosemirror deletes elements it
// cannot map, so a document holding any other element opens read-only (see unknownElements).
import { Schema, type NodeSpec, type MarkSpec } from 'prosemirror-model'
import * as Y from 'yjs'

const block = (tag: string, content = 'inline*', extra: Partial<NodeSpec> = {}): NodeSpec => ({
  content,
  group: 'block',
  parseDOM: [{ tag }],
  toDOM: () => [tag, 0],
  ...extra,
})

const heading: NodeSpec = {
  attrs: { level: { default: 1 } },
  content: 'inline*',
  group: 'block',
  defining: true,
  parseDOM: [1, 2, 3, 4, 5, 6].map((level) => ({ tag: `h${level}`, attrs: { level } })),
  toDOM: (n) => [`h${Math.min(6, Math.max(1, Number(n.attrs.level) || 1))}`, 0],
}
const codeBlock = block('pre', 'text*', {
  code: true,
  marks: '',
  attrs: { language: { default: null } },
  toDOM: () => ['pre', ['code', 0]],
})
const rule: NodeSpec = { group: 'block', parseDOM: [{ tag: 'hr' }], toDOM: () => ['hr'] }
const hardBreak: NodeSpec = {
  inline: true,
  group: 'inline',
  selectable: false,
  parseDOM: [{ tag: 'br' }],
  toDOM: () => ['br'],
}
const image: NodeSpec = {
  inline: true,
  group: 'inline',
  attrs: { src: { default: '' }, alt: { default: null }, title: { default: null } },
  parseDOM: [
    {
      tag: 'img[src]',
      getAttrs: (d) => ({ src: (d as HTMLElement).getAttribute('src'), alt: (d as HTMLElement).getAttribute('alt') }),
    },
  ],
  toDOM: (n) => ['img', { src: String(n.attrs.src), alt: n.attrs.alt ?? '' }],
}
const bulletList = block('ul', 'listItem+', {})
const orderedList = block('ol', 'listItem+', { attrs: { order: { default: 1 }, start: { default: 1 } } })
const listItem: NodeSpec = { content: 'block+', defining: true, parseDOM: [{ tag: 'li' }], toDOM: () => ['li', 0] }

const nodes: Record<string, NodeSpec> = {
  doc: { content: 'block+' },
  paragraph: block('p'),
  heading,
  blockquote: block('blockquote', 'block+', { defining: true }),
  code_block: codeBlock,
  codeBlock,
  horizontal_rule: rule,
  horizontalRule: rule,
  bullet_list: { ...bulletList, content: '(list_item | listItem)+' },
  bulletList: { ...bulletList, content: '(list_item | listItem)+' },
  ordered_list: { ...orderedList, content: '(list_item | listItem)+' },
  orderedList: { ...orderedList, content: '(list_item | listItem)+' },
  list_item: listItem,
  listItem,
  text: { group: 'inline' },
  hard_break: hardBreak,
  hardBreak,
  image,
}

const mark = (tag: string): MarkSpec => ({ parseDOM: [{ tag }], toDOM: () => [tag, 0] })
const link: MarkSpec = {
  attrs: { href: { default: '' }, title: { default: null } },
  inclusive: false,
  parseDOM: [{ tag: 'a[href]', getAttrs: (d) => ({ href: (d as HTMLElement).getAttribute('href') }) }],
  // Links render without navigating: a document's href is someone else's input.
  toDOM: (m) => ['a', { title: String(m.attrs.href), rel: 'noopener noreferrer' }, 0],
}
const marks: Record<string, MarkSpec> = {
  strong: mark('strong'),
  bold: mark('strong'),
  em: mark('em'),
  italic: mark('em'),
  code: mark('code'),
  strike: mark('s'),
  underline: mark('u'),
  link,
}

export const schema = new Schema({ nodes, marks })

/** Element names in the fragment the schema cannot hold (y-prosemirror would delete them). */
export function unknownElements(fragment: Y.XmlFragment): string[] {
  const unknown = new Set<string>()
  const walk = (t: Y.XmlFragment | Y.XmlElement) => {
    for (const child of t.toArray()) {
      if (child instanceof Y.XmlElement) {
        if (!schema.nodes[child.nodeName]) unknown.add(child.nodeName)
        walk(child)
      } else if (child instanceof Y.XmlText) {
        for (const op of child.toDelta() as { attributes?: Record<string, unknown> }[]) {
          for (const m of Object.keys(op.attributes ?? {}))
            if (!schema.marks[m] && !m.startsWith('ychange')) unknown.add(`mark ${m}`)
        }
      }
    }
  }
  walk(fragment)
  return [...unknown]
}
