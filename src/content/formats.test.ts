import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { fragmentToPm } from './fragment-read.js'
import { computeEdit, readContent } from './formats.js'
import type { PmNode } from './pm-json.js'

/** A document as Tiptap stores one: link marks with target/rel, an underline, an aligned and an empty paragraph. */
function tiptapDoc(): Y.Doc {
  const doc = new Y.Doc()
  const frag = doc.getXmlFragment('default')
  const para = (text: string, attrs: Record<string, string> = {}, format?: Record<string, unknown>) => {
    const p = new Y.XmlElement('paragraph')
    for (const [k, v] of Object.entries(attrs)) p.setAttribute(k, v)
    const t = new Y.XmlText()
    p.insert(0, [t])
    t.insert(0, text, format)
    return p
  }
  const link = {
    link: { href: 'https://a.example', target: '_blank', rel: 'noopener noreferrer nofollow', class: null },
  }
  frag.insert(0, [
    para('Intro', { textAlign: 'center' }),
    para(''),
    para('see docs', {}, link),
    para('underlined', {}, { underline: {} }),
    para('Last one.'),
  ])
  return doc
}

const stateOf = (d: Y.Doc) => Y.encodeStateAsUpdate(d)
const apply = (d: Y.Doc, u: Uint8Array | null) => u && Y.applyUpdate(d, u)
const pm = (d: Y.Doc) => fragmentToPm(d.getXmlFragment('default'))

describe('Markdown writes leave what Markdown cannot say', () => {
  it('reading then writing the same Markdown changes nothing', () => {
    const doc = tiptapDoc()
    const md = readContent(stateOf(doc), 'markdown', null).content as string
    expect(md).toBe('Intro\n\n[see docs](https://a.example)\n\nunderlined\n\nLast one.\n')
    expect(computeEdit(stateOf(doc), { format: 'markdown', content: md, root: null }).update).toBeNull()
  })

  it('a one-word change keeps link targets, underline, alignment and the empty paragraph', () => {
    const doc = tiptapDoc()
    const before = pm(doc)
    const md = readContent(stateOf(doc), 'markdown', null).content as string
    const edit = computeEdit(stateOf(doc), {
      format: 'markdown',
      content: md.replace('Last one.', 'Last two.'),
      root: null,
    })
    expect(edit).toMatchObject({ inserted: 2, deleted: 2 }) // 'one' -> 'two' keeps the 'o'
    apply(doc, edit.update)
    const after = pm(doc)
    expect(after.content!.slice(0, 4)).toEqual(before.content!.slice(0, 4))
    expect(after.content![4]).toEqual({ type: 'paragraph', content: [{ type: 'text', text: 'Last two.' }] })
  })

  it('bold added over part of a linked text keeps the link attributes Markdown does not show', () => {
    const doc = tiptapDoc()
    const md = readContent(stateOf(doc), 'markdown', null).content as string
    apply(
      doc,
      computeEdit(stateOf(doc), { format: 'markdown', content: md.replace('[see docs]', '[see **docs**]'), root: null })
        .update,
    )
    const p = pm(doc).content![2]!
    const link = { href: 'https://a.example', target: '_blank', rel: 'noopener noreferrer nofollow', class: null }
    expect(p.content).toEqual([
      { type: 'text', text: 'see ', marks: [{ type: 'link', attrs: link }] },
      { type: 'text', text: 'docs', marks: [{ type: 'link', attrs: link }, { type: 'bold' }] },
    ])
  })
})

describe('ProseMirror JSON writes', () => {
  it('set exactly the attributes and marks given', () => {
    const doc = tiptapDoc()
    const target = pm(doc)
    target.content![0] = { type: 'paragraph', content: [{ type: 'text', text: 'Intro' }] } // alignment dropped
    apply(doc, computeEdit(stateOf(doc), { format: 'prosemirror', content: target, root: null }).update)
    expect(pm(doc)).toEqual(target)
  })

  it('keep a concurrent edit inside a block the write changes, beside a block it deletes', () => {
    const base = tiptapDoc()
    const baseState = stateOf(base)
    // A person edits paragraph 5 ("Last one.") after the agent's read.
    const person = new Y.Doc()
    Y.applyUpdate(person, baseState)
    ;((person.getXmlFragment('default').get(4) as Y.XmlElement).get(0) as Y.XmlText).insert(0, 'Very ')
    // The agent, from the base, deletes "underlined" and edits "Last one." into "Last one, done."
    const target = pm(base)
    const content = target.content!.filter((n: PmNode) => n.content?.[0]?.text !== 'underlined')
    content[content.length - 1] = { type: 'paragraph', content: [{ type: 'text', text: 'Last one, done.' }] }
    const edit = computeEdit(baseState, { format: 'prosemirror', content: { type: 'doc', content }, root: null })
    apply(person, edit.update)
    const texts = pm(person).content!.map((n) => (n.content ?? []).map((t) => t.text).join(''))
    expect(texts).toEqual(['Intro', '', 'see docs', 'Very Last one, done.'])
  })
})

describe('emphasis and white space', () => {
  it('white space at the edge of emphasis prints outside it, and writing that Markdown back changes nothing', () => {
    const doc = new Y.Doc()
    const p = new Y.XmlElement('paragraph')
    doc.getXmlFragment('default').insert(0, [p])
    const t = new Y.XmlText()
    p.insert(0, [t])
    t.insert(0, 'Bold', { strong: {} })
    t.insert(4, ' and slanted ', { em: {} })
    t.insert(17, 'end', {})
    const md = readContent(stateOf(doc), 'markdown', null).content as string
    expect(md).toBe('**Bold** *and slanted* end\n')
    expect(computeEdit(stateOf(doc), { format: 'markdown', content: md, root: null }).update).toBeNull()
  })
})

describe('roots content formats do not hold', () => {
  it('a Y.Array or Y.Map root is refused by name on read and on write, never taken for an empty one', () => {
    const doc = new Y.Doc()
    doc.getArray('list').insert(0, [1, new Y.Map()])
    doc.getMap('settings').set('k', 1)
    for (const [root, type] of [
      ['list', 'Y.Array'],
      ['settings', 'Y.Map'],
    ] as const) {
      expect(() => readContent(stateOf(doc), 'markdown', root)).toThrow(`root "${root}" is a ${type}`)
      expect(() =>
        computeEdit(stateOf(doc), { format: 'prosemirror', content: { type: 'doc', content: [] }, root }),
      ).toThrow(`root "${root}" is a ${type}`)
    }
  })
})
