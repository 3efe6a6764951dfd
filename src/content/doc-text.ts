// Plain text of a Yjs document, read straight from its item lists so a live room's doc is never
// changed (no root type is instantiated or converted). A root holding text items renders as Y.Text;
// a root holding XML nodes renders as a Y.XmlFragment with every block on its own line.
import * as Y from 'yjs'
import type { TextAnchor } from '../control/comments.js'
import { blockIdOf } from './block-id.js'
import { liveItems, liveKind, type AnyType } from '../ydoc/roots.js'
import { contentRoot } from './roots.js'

/** The characters of a text type (Y.Text or Y.XmlText); formatting and embeds are dropped. */
function inlineText(type: AnyType): string {
  let s = ''
  for (const item of liveItems(type)) {
    if (item.content instanceof Y.ContentString) s += item.content.str
    else if (item.content instanceof Y.ContentType) s += elementInline(item.content.type as AnyType)
  }
  return s
}

function elementInline(t: AnyType): string {
  if (t instanceof Y.XmlText) return inlineText(t)
  if (t instanceof Y.XmlElement && (t.nodeName === 'hard_break' || t.nodeName === 'hardBreak')) return '\n'
  let s = ''
  for (const item of liveItems(t))
    if (item.content instanceof Y.ContentType) s += elementInline(item.content.type as AnyType)
  return s
}

/** Block elements become lines; an element whose children are all elements is a container (list, quote). */
function blockLines(t: AnyType, out: string[]): void {
  if (t instanceof Y.XmlText) {
    out.push(inlineText(t))
    return
  }
  const children = [...liveItems(t)].map((i) =>
    i.content instanceof Y.ContentType ? (i.content.type as AnyType) : null,
  )
  const container = children.length > 0 && children.every((c) => c instanceof Y.XmlElement)
  if (container) for (const c of children) blockLines(c!, out)
  else out.push(elementInline(t))
}

export function renderDocText(doc: Y.Doc): string {
  const root = contentRoot(doc)
  return root ? renderText(root.type, root.kind) : ''
}

/** The plain text of one root: a text root's characters, or an XML root's blocks one per line. */
export function renderText(type: AnyType, kind: 'text' | 'xml'): string {
  if (kind === 'text') return inlineText(type)
  const lines: string[] = []
  for (const item of liveItems(type)) {
    if (item.content instanceof Y.ContentType) blockLines(item.content.type as AnyType, lines)
  }
  return lines.join('\n')
}

/** A top-level block's plain text (search indexes it): id null for a text root, which has no blocks. */
export interface BlockText {
  id: string | null
  text: string
}

/** The content root's top-level blocks with their plain text, in document order; empty blocks left out. */
export function blockTexts(doc: Y.Doc): BlockText[] {
  const root = contentRoot(doc)
  if (!root) return []
  if (root.kind === 'text') return [{ id: null, text: inlineText(root.type) }].filter((b) => b.text.trim() !== '')
  const out: BlockText[] = []
  for (const item of liveItems(root.type)) {
    // the same blocks, with the same ids, as a part read's outline (parts-model.ts)
    if (!(item.content instanceof Y.ContentType) || !(item.content.type instanceof Y.XmlElement)) continue
    const lines: string[] = []
    blockLines(item.content.type as AnyType, lines)
    const text = lines.join('\n')
    if (text.trim() !== '') out.push({ id: blockIdOf(item.id), text })
  }
  return out
}

/** Characters [from, to) of a text type, indexed the way Y.Text indexes (embeds count one). */
function sliceText(type: AnyType, from: number, to: number): string {
  let s = ''
  let pos = 0
  for (const item of liveItems(type)) {
    if (!item.countable) continue
    const len = item.length
    if (item.content instanceof Y.ContentString && pos + len > from && pos < to) {
      s += item.content.str.slice(Math.max(0, from - pos), Math.min(len, to - pos))
    }
    pos += len
    if (pos >= to) break
  }
  return s
}

function* textTypes(t: AnyType): Generator<AnyType> {
  if (liveKind(t) === 'text' || t instanceof Y.XmlText) {
    yield t
    return
  }
  for (const item of liveItems(t))
    if (item.content instanceof Y.ContentType) yield* textTypes(item.content.type as AnyType)
}

const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64')

/** Anchors the first occurrence of `quote` inside one text node of the document. */
export function anchorQuote(doc: Y.Doc, quote: string): TextAnchor | null {
  const root = contentRoot(doc)
  if (!root || !quote) return null
  for (const t of textTypes(root.type)) {
    const at = sliceText(t, 0, Number.MAX_SAFE_INTEGER).indexOf(quote)
    if (at < 0) continue
    return {
      root: root.name,
      start: b64(Y.encodeRelativePosition(Y.createRelativePositionFromTypeIndex(t, at, 0))),
      end: b64(Y.encodeRelativePosition(Y.createRelativePositionFromTypeIndex(t, at + quote.length, -1))),
    }
  }
  return null
}

/** The text currently between an anchor's two positions, or null when they no longer resolve to one range. */
export function anchoredText(doc: Y.Doc, anchor: TextAnchor): string | null {
  const start = Y.createAbsolutePositionFromRelativePosition(
    Y.decodeRelativePosition(Buffer.from(anchor.start, 'base64')),
    doc,
  )
  const end = Y.createAbsolutePositionFromRelativePosition(
    Y.decodeRelativePosition(Buffer.from(anchor.end, 'base64')),
    doc,
  )
  if (!start || !end || start.type !== end.type || end.index < start.index) return null
  return sliceText(start.type as AnyType, start.index, end.index)
}
