// The one depth bound of content reads and writes, in process: exact at the limit, refused past it,
// and never a stack overflow or a cut however deep the input.
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { AppError } from '../infra/errors.js'
import { MAX_DEPTH } from './depth.js'
import { computeEdit, readContent } from './formats.js'
import { markdownToPm } from './markdown-in.js'
import { pmToMarkdown } from './markdown-out.js'

const outline = (levels: number) =>
  Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}- item ${i + 1}\n`).join('') + '\nAfter.\n'

function refusal(f: () => unknown): AppError {
  try {
    f()
  } catch (e) {
    if (e instanceof AppError) return e
    throw e
  }
  throw new Error('not refused')
}

describe('the content depth limit', () => {
  it(`an outline whose last paragraph is at depth ${MAX_DEPTH - 1} round-trips whole; one level more is refused naming the limit`, () => {
    const levels = (MAX_DEPTH - 2) / 2 // each level a list and an item, then the item's paragraph
    const md = outline(levels)
    expect(pmToMarkdown(markdownToPm(md, 'tiptap'))).toBe(md)
    const e = refusal(() => markdownToPm(outline(levels + 1), 'tiptap'))
    expect(e.code).toBe('too_deep')
    expect(e.status).toBe(422)
    expect(e.message).toContain(`${MAX_DEPTH} levels`)
  })

  it('a megabyte of ">" is refused, not cut and not a stack overflow', () => {
    expect(refusal(() => markdownToPm('>'.repeat(1_000_000), 'tiptap')).code).toBe('too_deep')
    expect(refusal(() => markdownToPm(`${'- + '.repeat(250_000)}x`, 'basic')).code).toBe('too_deep')
  })

  it('runs of "[" and "![" (which make no depth) stay text, whole', () => {
    const md = '!['.repeat(50_000)
    const doc = markdownToPm(md, 'tiptap')
    expect(doc.content?.[0]?.content?.map((t) => t.text).join('')).toBe(md)
  })

  it('a write into a document already past the limit is refused, and so is its read', () => {
    const doc = new Y.Doc()
    // Built top-down in one transaction: Yjs integrates a prepared subtree recursively.
    doc.transact(() => {
      let parent: Y.XmlFragment | Y.XmlElement = doc.getXmlFragment('default')
      for (let i = 0; i < 10_000; i++) {
        const q = new Y.XmlElement('blockquote')
        parent.insert(0, [q])
        parent = q
      }
    })
    const state = Y.encodeStateAsUpdate(doc)
    expect(refusal(() => readContent(state, 'markdown', null)).code).toBe('too_deep')
    expect(refusal(() => readContent(state, 'prosemirror', null)).code).toBe('too_deep')
    expect(refusal(() => computeEdit(state, { format: 'markdown', content: 'x', root: null })).code).toBe('too_deep')
  })
})
