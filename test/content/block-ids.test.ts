// What becomes of a block id when a person edits through y-prosemirror (the binding Tiptap and the
// console use, driven here through its own updateYFragment as it is on every editor transaction):
// typing keeps the id, a split keeps it on the first part, a merge keeps the first block's id,
// and turning a paragraph into a heading is a new block. docs/content.md (Reading a part) says the
// same.
import { Schema, type Node } from 'prosemirror-model'
import { describe, expect, it } from 'vitest'
import { prosemirrorToYXmlFragment, updateYFragment } from 'y-prosemirror'
import * as Y from 'yjs'
import { buildParts } from '../../src/content/parts-model.js'

const schema = new Schema({
  nodes: {
    doc: { content: 'block+' },
    paragraph: { group: 'block', content: 'text*' },
    heading: { group: 'block', content: 'text*', attrs: { level: { default: 1 } } },
    text: {},
  },
})
const p = (t: string) => schema.node('paragraph', null, t ? [schema.text(t)] : [])
const h1 = (t: string) => schema.node('heading', { level: 1 }, [schema.text(t)])

/** The outline's ids before and after an editor goes from `before` to `after`. */
function idsThrough(before: Node[], after: Node[]): [string[], string[]] {
  const ydoc = new Y.Doc()
  const frag = ydoc.getXmlFragment('default')
  prosemirrorToYXmlFragment(schema.node('doc', null, before), frag)
  const ids = () => buildParts(Y.encodeStateAsUpdate(ydoc), null).blocks.map((b) => b.id)
  const was = ids()
  const meta = { mapping: new Map(), isOMark: new Map() }
  updateYFragment(ydoc, frag, schema.node('doc', null, before), meta)
  updateYFragment(ydoc, frag, schema.node('doc', null, after), meta)
  return [was, ids()]
}

describe('block ids through an editor', () => {
  it('typing in a block keeps its id', () => {
    const [was, now] = idsThrough([p('Hello'), p('Next')], [p('Hello there'), p('Next')])
    expect(now).toEqual(was)
  })

  it('a split keeps the id on the first part; the second part is a new block', () => {
    const [was, now] = idsThrough([p('Hello world'), p('Next')], [p('Hello'), p(' world'), p('Next')])
    expect([now[0], now[2]]).toEqual(was)
    expect(was).not.toContain(now[1])
  })

  it("a merge keeps the first block's id", () => {
    const [was, now] = idsThrough([p('Hello'), p(' world'), p('Next')], [p('Hello world'), p('Next')])
    expect(now).toEqual([was[0], was[2]])
  })

  it('a paragraph turned into a heading is a new block', () => {
    const [was, now] = idsThrough([p('Title'), p('Next')], [h1('Title'), p('Next')])
    expect(now[1]).toBe(was[1])
    expect(now[0]).not.toBe(was[0])
  })
})
