// Root kinds as the server sees them: roots of a document decoded from its updates, untyped, never
// instantiated. liveKind skips what was deleted; kindIncludingDeleted keeps it; both know arrays.
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { kindIncludingDeleted, liveKind, rootsOf, typeKind, type AnyType } from './roots.js'

/** The root `name` of a copy of what `build` wrote, as a served document holds it (gc off: history's docs). */
function served(build: (doc: Y.Doc) => void, name = 'r', gc = false): AnyType {
  const src = new Y.Doc({ gc })
  build(src)
  const doc = new Y.Doc({ gc })
  Y.applyUpdate(doc, Y.encodeStateAsUpdate(src))
  const type = doc.share.get(name)!
  expect(type.constructor).toBe(Y.AbstractType) // untyped, as the server holds it
  return type
}

const both = (t: AnyType) => [liveKind(t), kindIncludingDeleted(t)]

describe('root kinds', () => {
  it('text, with formats and embeds', () => {
    expect(both(served((d) => d.getText('r').insert(0, 'hello')))).toEqual(['text', 'text'])
    expect(both(served((d) => d.getText('r').insertEmbed(0, { image: 'x' })))).toEqual(['text', 'text'])
    // a shared type embedded before the first character does not make the text an array
    expect(both(served((d) => (d.getText('r').insert(0, 'hi'), d.getText('r').insertEmbed(0, new Y.Map()))))).toEqual([
      'text',
      'text',
    ])
  })

  it('an XML fragment of elements, of text, of hooks', () => {
    expect(both(served((d) => d.getXmlFragment('r').insert(0, [new Y.XmlElement('paragraph')])))).toEqual([
      'xml',
      'xml',
    ])
    expect(both(served((d) => d.getXmlFragment('r').insert(0, [new Y.XmlText('t')])))).toEqual(['xml', 'xml'])
    // Yjs' types leave hooks out of a fragment's children; its code takes them
    const hook = new Y.XmlHook('h') as unknown as Y.XmlElement
    expect(both(served((d) => d.getXmlFragment('r').insert(0, [hook])))).toEqual(['xml', 'xml'])
  })

  it('arrays of values, of binaries, of shared types', () => {
    expect(both(served((d) => d.getArray('r').insert(0, [1, 'two', { three: 3 }])))).toEqual(['array', 'array'])
    expect(both(served((d) => d.getArray('r').insert(0, [Uint8Array.of(1)])))).toEqual(['array', 'array'])
    expect(both(served((d) => d.getArray('r').insert(0, [new Y.Map(), new Y.Text('t')])))).toEqual(['array', 'array'])
  })

  it('maps, and a root with nothing in it', () => {
    expect(both(served((d) => d.getMap('r').set('k', 1)))).toEqual(['map', 'map'])
    expect(both(served((d) => (d.getMap('other').set('k', 1), d.getText('r')), 'other'))).toEqual(['map', 'map'])
    const empty = new Y.Doc().get('r')
    expect(both(empty)).toEqual(['empty', 'empty'])
  })

  it('what was deleted: liveKind skips it, kindIncludingDeleted keeps it', () => {
    const text = (d: Y.Doc) => (d.getText('r').insert(0, 'gone'), d.getText('r').delete(0, 4))
    expect(both(served(text))).toEqual(['empty', 'text'])
    const xml = (d: Y.Doc) => (
      d.getXmlFragment('r').insert(0, [new Y.XmlElement('p')]),
      d.getXmlFragment('r').delete(0, 1)
    )
    expect(both(served(xml))).toEqual(['empty', 'xml'])
    const array = (d: Y.Doc) => (d.getArray('r').insert(0, [1, 2]), d.getArray('r').delete(0, 2))
    expect(both(served(array))).toEqual(['empty', 'array'])
    const map = (d: Y.Doc) => (d.getMap('r').set('k', 1), d.getMap('r').delete('k'))
    expect(both(served(map))).toEqual(['empty', 'map'])
    // deleted items before live ones are skipped, not taken for the kind
    const rest = (d: Y.Doc) => (d.getText('r').insert(0, 'ab'), d.getText('r').delete(0, 1))
    expect(both(served(rest))).toEqual(['text', 'text'])
  })

  it('nested types by their class, roots in name order', () => {
    expect(
      [new Y.Text(), new Y.XmlText(), new Y.XmlElement('p'), new Y.XmlFragment(), new Y.Array(), new Y.Map()].map(
        typeKind,
      ),
    ).toEqual(['text', 'text', 'xml', 'xml', 'array', 'map'])
    const doc = new Y.Doc()
    for (const name of ['b', 'c', 'a']) doc.getText(name)
    expect(rootsOf(doc).map(([name]) => name)).toEqual(['a', 'b', 'c'])
  })
})
