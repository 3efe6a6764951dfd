// Reading a document's content in a format, and computing the smallest Yjs update that makes it
// read as given content: pure functions of an encoded state, so they run in the event loop or in
// a worker thread alike (doc-content-worker.ts).
import * as Y from 'yjs'
import { AppError } from '../infra/errors.js'
import { documentTooDeep, MAX_DEPTH } from './depth.js'
import { renderText } from './doc-text.js'
import { fragmentToPm, markTypeOf } from './fragment-read.js'
import { concurrentSince } from './concurrent.js'
import { updateChildren } from './fragment-update.js'
import { FULL, MARKDOWN } from './lens.js'
import { markdownToPm } from './markdown-in.js'
import { pmToMarkdown } from './markdown-out.js'
import { checkPmDoc, vocabularyOf, type PmNode } from './pm-json.js'
import { liveItems, type AnyType, type RootKind } from '../ydoc/roots.js'
import { contentRoot, DEFAULT_ROOT, namedRoot } from './roots.js'
import { updateText, type Counts } from './text-update.js'
import type { Format } from './format-names.js'

export type { Format }

/** The root a plain-text write creates in a document with no content (never `default`, Tiptap's XML root). */
const DEFAULT_TEXT_ROOT = 'text'

export interface ContentRead {
  root: string
  content: string | PmNode
}

function pickRoot(
  doc: Y.Doc,
  name: string | null,
  format: Format,
): { name: string; type: AnyType | null; kind: RootKind } {
  if (name !== null) return namedRoot(doc, name)
  const found = contentRoot(doc)
  if (found) return found
  return { name: format === 'text' ? DEFAULT_TEXT_ROOT : DEFAULT_ROOT, type: null, kind: 'empty' }
}

function refuseKind(root: { name: string; kind: RootKind }, format: Format): void {
  const name = JSON.stringify(root.name)
  if (root.kind === 'map' || root.kind === 'array') {
    throw new AppError(
      'validation',
      `root ${name} is a ${root.kind === 'map' ? 'Y.Map' : 'Y.Array'}: content formats read and write text and XML roots only`,
    )
  }
  if (root.kind === 'text' && format !== 'text')
    throw new AppError('validation', `root ${name} is a Y.Text: read and write it with format=text`)
}

export function readContent(state: Uint8Array, format: Format, rootName: string | null): ContentRead {
  const doc = new Y.Doc()
  try {
    Y.applyUpdate(doc, state)
    return readContentOf(doc, format, rootName)
  } finally {
    doc.destroy()
  }
}

/** The content of `doc` in a format; `markdownOf` prints an XML root (a warm document keeps its view). */
export function readContentOf(
  doc: Y.Doc,
  format: Format,
  rootName: string | null,
  markdownOf?: (name: string, root: Y.XmlFragment) => string,
): ContentRead {
  const root = pickRoot(doc, rootName, format)
  refuseKind(root, format)
  if (root.kind === 'empty' || !root.type)
    return { root: root.name, content: format === 'prosemirror' ? { type: 'doc', content: [] } : '' }
  if (format === 'text') return { root: root.name, content: renderText(root.type, root.kind as 'text' | 'xml') }
  if (format === 'markdown' && markdownOf)
    return { root: root.name, content: markdownOf(root.name, root.type as Y.XmlFragment) }
  const pm = fragmentToPm(root.type)
  return { root: root.name, content: format === 'prosemirror' ? pm : pmToMarkdown(pm) }
}

export interface EditInput {
  format: Format
  /** Markdown or text as a string; ProseMirror JSON as parsed JSON (checked here) */
  content: unknown
  root: string | null
}

export interface EditResult extends Counts {
  root: string
  /** the change, null when the document already reads as the content */
  update: Uint8Array | null
}

/**
 * Element and mark names a fragment holds: a write may use them even when Tandem does not know
 * them. A document nesting past MAX_DEPTH is refused here, before any other walk over it.
 */
function namesIn(t: AnyType, into: Set<string>, depth = 1): Set<string> {
  for (const item of liveItems(t)) {
    if (!(item.content instanceof Y.ContentType)) continue
    const child = item.content.type
    if (child instanceof Y.XmlElement) {
      if (depth > MAX_DEPTH) throw documentTooDeep()
      into.add(child.nodeName)
      namesIn(child, into, depth + 1)
    } else if (child instanceof Y.XmlText) {
      for (const op of child.toDelta() as { attributes?: Record<string, unknown> }[])
        for (const k of Object.keys(op.attributes ?? {})) into.add(markTypeOf(k))
    }
  }
  return into
}

/** The element and mark names of a fragment, lazily: a vocabulary is mostly told by the first few. */
export function* namesOf(t: AnyType, depth = 1): Generator<string> {
  for (const item of liveItems(t)) {
    if (!(item.content instanceof Y.ContentType)) continue
    const child = item.content.type
    if (child instanceof Y.XmlElement) {
      if (depth > MAX_DEPTH) throw documentTooDeep()
      yield child.nodeName
      yield* namesOf(child, depth + 1)
    } else if (child instanceof Y.XmlText) {
      // a mark is a format item in the text: read off the items, not a delta built of every run
      for (let i = child._start; i !== null; i = i.right)
        if (!i.deleted && i.content instanceof Y.ContentFormat && i.content.value !== null)
          yield markTypeOf(i.content.key)
    }
  }
}

/**
 * The smallest update that makes `state`'s root read as the content (see fragment-update.ts).
 * `now`: the document as it is, when others wrote since `state` (the base): what they inserted is
 * not inserted again where the content repeats it at the same place (concurrent.ts).
 */
export function computeEdit(state: Uint8Array, input: EditInput, now?: Uint8Array): EditResult {
  const doc = new Y.Doc()
  try {
    Y.applyUpdate(doc, state)
    return editOf(doc, input, now)
  } finally {
    doc.destroy()
  }
}

/** computeEdit on a document in hand, which it changes (a warm document the write goes on from). */
export function editOf(doc: Y.Doc, input: EditInput, now?: Uint8Array): EditResult {
  let since: ReturnType<typeof concurrentSince> | undefined
  const listeners: ((u: Uint8Array) => void)[] = []
  try {
    since = now ? concurrentSince(doc, now) : undefined
    // A fresh client id for the new items, never one the document holds, at the base or now.
    while (doc.store.clients.has(doc.clientID) || since?.holdsClient(doc.clientID))
      doc.clientID = Math.floor(Math.random() * 0xffffffff)
    const root = pickRoot(doc, input.root, input.format)
    refuseKind(root, input.format)
    if (input.format === 'text' && root.kind === 'xml') {
      throw new AppError(
        'validation',
        `root ${JSON.stringify(root.name)} is an XML fragment: write it with format=markdown or format=prosemirror`,
      )
    }
    if (typeof input.content !== 'string' && input.format !== 'prosemirror')
      throw new AppError('validation', `content must be a string for format=${input.format}`)
    const counts: Counts = { inserted: 0, deleted: 0 }
    let update: Uint8Array | null = null
    const collect = (u: Uint8Array) => {
      update = update ? Y.mergeUpdates([update, u]) : u
    }
    listeners.push(collect)
    doc.on('update', collect)
    if (input.format === 'text') {
      const text = doc.getText(root.name)
      doc.transact(() =>
        updateText(text, [{ text: input.content as string, attrs: {} }], counts, true, FULL, since?.textGaps(text)),
      )
    } else {
      const fragment = doc.getXmlFragment(root.name)
      // Markdown needs only the vocabulary (a document too deep is refused by the diff's reading of it)
      const target =
        input.format === 'markdown'
          ? markdownToPm(input.content as string, vocabularyOf(namesOf(fragment)))
          : checkPmDoc(input.content, namesIn(fragment, new Set()))
      doc.transact(() =>
        updateChildren(fragment, target.content, counts, input.format === 'markdown' ? MARKDOWN : FULL, since),
      )
    }
    return { root: root.name, update, ...counts }
  } finally {
    since?.done()
    for (const l of listeners) doc.off('update', l)
  }
}
