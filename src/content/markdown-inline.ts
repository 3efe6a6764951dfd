// A paragraph's inline tokens (markdown-it) as ProseMirror text and inline nodes, marks on text.
// Two things Markdown says that a ProseMirror/Yjs document has no mark for are kept as:
// - a link around an image: the image's `link` attribute (`{href, title?}`, the link mark's attrs),
//   as y-prosemirror stores no marks on elements;
// - a link without text (`[](./target.md)`): the link on one zero-width space (EMPTY_LINK_TEXT),
//   which the printer takes out again.
import type Token from 'markdown-it/lib/token.mjs'
import type { NODE_NAMES, PmMark, PmNode, Vocabulary } from './pm-json.js'

export const EMPTY_LINK_TEXT = '\u200b'

/** White space around a line break in raw HTML, which a paragraph drops. */
export const LINE_EDGE = /[ \t]*\n[ \t]*/g

/**
 * An image description as plain text (its alt). markdown-it's own renderInlineAsText leaves out
 * escaped characters and code (`![\\[a\\]](x)` would lose its brackets on every write).
 */
function plainText(tokens: readonly Token[]): string {
  let s = ''
  for (const t of tokens) {
    if (t.type === 'softbreak' || t.type === 'hardbreak') s += '\n'
    else if (t.type === 'image') s += plainText(t.children ?? [])
    else if (t.type === 'text' || t.type === 'text_special' || t.type === 'code_inline' || t.type === 'html_inline')
      s += t.content
  }
  return s
}

export function inlineNodes(tokens: Token[], n: (typeof NODE_NAMES)[Vocabulary]): PmNode[] {
  const out: PmNode[] = []
  const marks: PmMark[] = []
  let linkHolds = false // whether the open link holds anything yet
  const text = (value: string, extra?: PmMark) => {
    if (!value) return
    linkHolds = true
    const all = extra ? [...marks, extra] : [...marks]
    const last = out[out.length - 1]
    if (last?.type === 'text' && JSON.stringify(last.marks ?? []) === JSON.stringify(all)) last.text += value
    else out.push(all.length ? { type: 'text', text: value, marks: all } : { type: 'text', text: value })
  }
  const drop = (type: string) => {
    const at = marks.map((m) => m.type).lastIndexOf(type)
    if (at >= 0) marks.splice(at, 1)
  }
  for (const t of tokens) {
    switch (t.type) {
      case 'text':
      case 'text_special':
        text(t.content)
        break
      case 'html_inline':
        text(t.content.replace(LINE_EDGE, '\n'))
        break
      case 'softbreak':
        text('\n')
        break
      case 'hardbreak':
        linkHolds = true
        out.push({ type: n.hardBreak })
        break
      case 'code_inline':
        text(t.content, { type: 'code' })
        break
      case 'strong_open':
        marks.push({ type: n.bold })
        break
      case 'strong_close':
        drop(n.bold)
        break
      case 'em_open':
        marks.push({ type: n.italic })
        break
      case 'em_close':
        drop(n.italic)
        break
      case 's_open':
        marks.push({ type: 'strike' })
        break
      case 's_close':
        drop('strike')
        break
      case 'link_open': {
        const href = t.attrGet('href') ?? ''
        const title = t.attrGet('title')
        marks.push({ type: 'link', attrs: title ? { href, title } : { href } })
        linkHolds = false
        break
      }
      case 'link_close':
        if (!linkHolds) text(EMPTY_LINK_TEXT)
        drop('link')
        break
      case 'image': {
        linkHolds = true
        const title = t.attrGet('title')
        const alt = plainText(t.children ?? [])
        const link = marks.find((m) => m.type === 'link')
        const attrs = {
          src: t.attrGet('src') ?? '',
          ...(alt ? { alt } : {}),
          ...(title ? { title } : {}),
          ...(link ? { link: link.attrs } : {}),
        }
        out.push({ type: 'image', attrs })
        break
      }
    }
  }
  return out
}
