// Renders a changeset's `roots` (see docs/history.md): the document at the end of the window, with
// what the window inserted and deleted highlighted in the colour of whoever did it.
import { colorOf } from '../colors.js'
import { h, when } from '../dom.js'

interface Attribution {
  insert?: string[]
  insertAt?: number
  delete?: string[]
  deleteAt?: number
}
interface TextRun {
  insert: unknown
  attribution?: Attribution
}
interface ElementNode {
  element: string
  attribution?: Attribution
  children: ChangeNode[]
}
type ChangeNode = TextRun | ElementNode
export interface RootChange {
  type: 'text' | 'xml' | 'array' | 'map'
  delta: ChangeNode[]
}

const BLOCKS: Record<string, keyof HTMLElementTagNameMap> = {
  paragraph: 'p',
  heading: 'h4',
  blockquote: 'blockquote',
  code_block: 'pre',
  codeBlock: 'pre',
  list_item: 'li',
  listItem: 'li',
  bullet_list: 'ul',
  bulletList: 'ul',
  ordered_list: 'ol',
  orderedList: 'ol',
}

function mark(a: Attribution | undefined, content: Node): Node {
  if (!a) return content
  if (a.delete?.length) {
    const who = a.delete[0]!
    return h(
      'del',
      {
        style: `text-decoration-color: ${colorOf(who)}; color: ${colorOf(who)}`,
        title: `deleted by ${who}${a.deleteAt ? ` at ${when(a.deleteAt)}` : ''}`,
      },
      content,
    )
  }
  if (a.insert?.length) {
    const who = a.insert[0]!
    return h(
      'ins',
      {
        style: `background-color: ${colorOf(who)}33; border-bottom-color: ${colorOf(who)}`,
        title: `inserted by ${who}${a.insertAt ? ` at ${when(a.insertAt)}` : ''}`,
      },
      content,
    )
  }
  return content
}

function render(n: ChangeNode): Node {
  if ('element' in n) {
    const el = h(BLOCKS[n.element] ?? 'span', { class: `cs-${n.element}` })
    for (const c of n.children) el.append(render(c))
    if (n.element === 'hard_break' || n.element === 'hardBreak') el.append(h('br'))
    return mark(n.attribution, el)
  }
  const text = typeof n.insert === 'string' ? n.insert : JSON.stringify(n.insert)
  return mark(n.attribution, document.createTextNode(text))
}

/** The document as of the changeset, marked; the root shown is `default` when present. */
export function renderChanges(roots: Record<string, RootChange>): HTMLElement {
  const name = 'default' in roots ? 'default' : Object.keys(roots).sort()[0]
  const out = h('div', { class: 'changes' })
  if (name === undefined) {
    out.append(h('p', { class: 'hint' }, 'No content in this version.'))
    return out
  }
  const root = roots[name]!
  if (root.type === 'text') {
    const p = h('p')
    for (const r of root.delta) p.append(render(r))
    out.append(p)
  } else if (root.type === 'xml') {
    for (const n of root.delta) out.append(render(n))
  } else {
    out.append(h('pre', {}, JSON.stringify(root.delta, null, 1)))
  }
  return out
}

/** Everyone who inserted or deleted something in the changeset, for the legend. */
export function authorsOf(roots: Record<string, RootChange>): string[] {
  const who = new Set<string>()
  const walk = (n: ChangeNode) => {
    for (const u of [...(n.attribution?.insert ?? []), ...(n.attribution?.delete ?? [])]) who.add(u)
    if ('element' in n) n.children.forEach(walk)
  }
  for (const r of Object.values(roots)) if (Array.isArray(r.delta)) r.delta.forEach(walk)
  return [...who].sort()
}
