// Where an agent's caret goes, as y-prosemirror's cursor plugin reads it from awareness:
// `{anchor, head}`, each a Yjs relative position in its JSON shape. A position names an item
// (a character, or a block), so it stays on the same text while others edit around it, and every
// client resolves it in its own copy of the document.
import * as Y from 'yjs'
import type { AgentCaret, RelativePositionJson } from '@tandem/api/content'
import { AppError } from '../infra/errors.js'
import { blockIdOf } from './block-id.js'
import { blockAt, lineAt, occurrencesIn, type Lined } from './parts-lines.js'
import type { BlockInfo } from './parts-model.js'
import { addressed } from './parts-select.js'

export type { AgentCaret }

const json = (p: Y.RelativePosition) => Y.relativePositionToJSON(p) as RelativePositionJson
/** Just after the character (or block) `id`: the caret at the end of what was written. */
const after = (id: Y.ID): RelativePositionJson => ({ item: { client: id.client, clock: id.clock }, assoc: -1 })
const collapsed = (p: RelativePositionJson): AgentCaret => ({ anchor: p, head: p })

/**
 * The caret after a write: at the end of the last text it inserted (the newest characters of the
 * update's own client), or where its first deletion was when it only deleted. Null when it changed nothing.
 */
export function caretAfterUpdate(update: Uint8Array): AgentCaret | null {
  const { structs, ds } = Y.decodeUpdate(update)
  let text: Y.Item | null = null
  let other: Y.Item | null = null
  for (const s of structs) {
    if (!(s instanceof Y.Item) || s.deleted) continue
    if (s.content instanceof Y.ContentString) {
      if (!text || s.id.clock > text.id.clock) text = s
    } else if (s.content instanceof Y.ContentType && (!other || s.id.clock > other.id.clock)) other = s
  }
  if (text) return collapsed(after(Y.createID(text.id.client, text.id.clock + text.length - 1)))
  if (other) return collapsed(after(other.id))
  for (const [client, dels] of ds.clients) {
    const first = dels[0]
    if (first) return collapsed({ item: { client, clock: first.clock }, assoc: 0 })
  }
  return null
}

/** The text types inside `el`, in document order. */
function textsIn(el: Y.XmlElement | Y.XmlText, out: Y.XmlText[] = []): Y.XmlText[] {
  if (el instanceof Y.XmlText) out.push(el)
  else for (const child of el.toArray()) if (!(child instanceof Y.XmlHook)) textsIn(child, out)
  return out
}

/** A text type's characters, marks left out (the offsets relative positions count in). */
const plain = (t: Y.XmlText) =>
  (t.toDelta() as { insert: unknown }[]).map((d) => (typeof d.insert === 'string' ? d.insert : ' ')).join('')

/**
 * A caret over the top-level block `el`: the first occurrence of `quote` in one of its texts when
 * given and found there, else the whole of its text (a block without text: the block itself).
 */
function caretOverBlock(el: Y.XmlElement, quote: string | null): AgentCaret {
  const texts = textsIn(el)
  if (quote) {
    for (const t of texts) {
      const at = plain(t).indexOf(quote)
      if (at < 0) continue
      return {
        anchor: json(Y.createRelativePositionFromTypeIndex(t, at)),
        head: json(Y.createRelativePositionFromTypeIndex(t, at + quote.length, -1)),
      }
    }
  }
  const first = texts[0]
  const last = texts[texts.length - 1]
  if (!first || !last) {
    const item = el._item!
    return { anchor: { item: { client: item.id.client, clock: item.id.clock }, assoc: 0 }, head: after(item.id) }
  }
  return {
    anchor: json(Y.createRelativePositionFromTypeIndex(first, 0)),
    head: json(Y.createRelativePositionFromTypeIndex(last, last.length, -1)),
  }
}

/**
 * The caret an agent shows without editing (the presence route): over the block `at` names (its id,
 * or a heading's text), the quote in it when given, or the first block whose Markdown holds `quote`.
 */
export function caretAt(
  doc: Y.Doc,
  view: Lined,
  at: string | null,
  quote: string | null,
): { block: string; cursor: AgentCaret } {
  let block: BlockInfo | null
  if (at !== null) block = view.blocks[addressed(view, at, 'at')]!
  else {
    const found = quote === null ? undefined : occurrencesIn(view, quote, 1)[0]
    if (found === undefined) throw new AppError('conflict', 'quote: no block of the document holds this text')
    block = blockAt(view, lineAt(view, found))
    if (!block) throw new AppError('conflict', 'quote: the text is not inside a block')
  }
  const fragment = doc.getXmlFragment(view.root)
  for (let item = fragment._start; item !== null; item = item.right) {
    if (item.deleted || !(item.content instanceof Y.ContentType) || blockIdOf(item.id) !== block.id) continue
    const el = item.content.type
    if (el instanceof Y.XmlElement) return { block: block.id, cursor: caretOverBlock(el, quote) }
  }
  throw new AppError('conflict', `at: block ${block.id} is not in the document now`)
}
