// What a part read works from: a document's Markdown view with its top-level blocks (id, kind,
// heading level, first words, the lines they print on). Built from an encoded state in one pass
// (in the warm content worker, warm-jobs.ts) and kept per base there (view-shelf.ts).
import * as Y from 'yjs'
import { AppError } from '../infra/errors.js'
import type { OutlineBlock } from '@tandem/api/content'
import { blockIdOf } from './block-id.js'
import { elementNode } from './fragment-read.js'
import { printWithSpans } from './markdown-spans.js'
import type { PmNode } from './pm-json.js'
import { liveItems, type AnyType } from '../ydoc/roots.js'
import { contentRoot, namedRoot } from './roots.js'

/** A top-level block as the model knows it: an outline's entry without its size. */
export type BlockInfo = Omit<OutlineBlock, 'chars'>

export interface PartsModel {
  root: string
  markdown: string
  /** the blocks that print in the Markdown view, in document order (an empty paragraph prints nothing) */
  blocks: BlockInfo[]
}

const HEADING_TEXT_MAX = 200
const FIRST_WORDS = 8
const FIRST_WORDS_MAX = 80

const plainText = (n: PmNode): string =>
  n.type === 'text' ? (n.text ?? '') : (n.content ?? []).map(plainText).join(n.content?.[0]?.type === 'text' ? '' : ' ')

function firstWords(n: PmNode): string {
  const words = plainText(n).split(/\s+/).filter(Boolean)
  const head = words.slice(0, FIRST_WORDS).join(' ')
  const text = head.length > FIRST_WORDS_MAX ? head.slice(0, FIRST_WORDS_MAX) : head
  return words.length > FIRST_WORDS || text.length < head.length ? `${text}…` : text
}

function levelOf(n: PmNode): number {
  return Math.min(6, Math.max(1, Number(n.attrs?.level) || 1))
}

/** The Markdown view of `state`'s editor root (or `rootName`) and its blocks. */
export function buildParts(state: Uint8Array, rootName: string | null): PartsModel {
  const doc = new Y.Doc()
  try {
    Y.applyUpdate(doc, state)
    return partsIn(doc, rootName)
  } finally {
    doc.destroy()
  }
}

/** The view of `doc`'s editor root (or `rootName`); `viewOf` builds it (a warm document keeps its own). */
export function partsIn(
  doc: Y.Doc,
  rootName: string | null,
  viewOf: (name: string, fragment: Y.XmlFragment) => PartsModel = partsOf,
): PartsModel {
  const root = rootName === null ? contentRoot(doc) : namedRoot(doc, rootName)
  const name = root?.name ?? 'default'
  if (!root || root.kind === 'empty' || !root.type) return { root: name, markdown: '', blocks: [] }
  if (root.kind !== 'xml') throw notXml(name)
  return viewOf(name, root.type as Y.XmlFragment)
}

export const notXml = (name: string) =>
  new AppError(
    'validation',
    `root ${JSON.stringify(name)} is not an XML fragment: a part read or edit reads rich-text documents; read this one whole with format=text`,
  )

/** The Markdown view of an XML root named `name` and its blocks. */
export function partsOf(name: string, fragment: AnyType): PartsModel {
  const items: { id: string; node: PmNode }[] = []
  for (const item of liveItems(fragment)) {
    if (item.content instanceof Y.ContentType && item.content.type instanceof Y.XmlElement)
      items.push({ id: blockIdOf(item.id), node: elementNode(item.content.type) })
  }
  const { markdown, spans } = printWithSpans(items.map((i) => i.node))
  const blocks: BlockInfo[] = []
  items.forEach(({ id, node }, i) => {
    const span = spans[i]
    if (span) blocks.push(placed(infoOf(id, node), span[0], span[1]))
  })
  return { root: name, markdown, blocks }
}

/**
 * A block's entry at its lines, built field by field: an object spread here took 2-4 µs a block
 * on Node 20 (most of a 1,000-block view's assembly), this takes a few ns.
 */
export function placed(info: Omit<BlockInfo, 'line' | 'end'>, line: number, end: number): BlockInfo {
  const b: BlockInfo = { id: info.id, kind: info.kind, text: info.text, line, end }
  if (info.level !== undefined) b.level = info.level
  return b
}

/** What the outline says of a block: its kind, a heading's level and text, another block's first words. */
export function infoOf(id: string, node: PmNode): Omit<BlockInfo, 'line' | 'end'> {
  const heading = node.type === 'heading'
  const info: Omit<BlockInfo, 'line' | 'end'> = {
    id,
    kind: node.type,
    text: heading ? plainText(node).slice(0, HEADING_TEXT_MAX) : firstWords(node),
  }
  if (heading) info.level = levelOf(node)
  return info
}
