import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { paragraphsUpdate } from './doc-seed.js'
import { anchorQuote, anchoredText, renderDocText } from './doc-text.js'

/** A doc as the server holds it: loaded from an update, roots never instantiated by name. */
function loaded(update: Uint8Array): Y.Doc {
  const d = new Y.Doc()
  Y.applyUpdate(d, update)
  return d
}

describe('document text', () => {
  it('renders paragraphs of an XML fragment on their own lines without instantiating its root', () => {
    const d = loaded(paragraphsUpdate('one\ntwo\n\nfour'))
    expect(renderDocText(d)).toBe('one\ntwo\n\nfour')
    expect(d.share.get('default')!.constructor).toBe(Y.AbstractType)
  })

  it('skips deleted text and formatting marks, renders hard breaks as newlines', () => {
    const src = new Y.Doc()
    const t = src.getText('text')
    t.insert(0, 'hello cruel world')
    t.delete(5, 6)
    t.format(0, 5, { bold: true })
    expect(renderDocText(loaded(Y.encodeStateAsUpdate(src)))).toBe('hello world')

    const x = new Y.Doc()
    const p = new Y.XmlElement('paragraph')
    x.getXmlFragment('prosemirror').insert(0, [p])
    p.insert(0, [new Y.XmlText('a'), new Y.XmlElement('hard_break'), new Y.XmlText('b')])
    expect(renderDocText(loaded(Y.encodeStateAsUpdate(x)))).toBe('a\nb')
  })

  it('prefers the conventional content root over other roots', () => {
    const src = new Y.Doc()
    src.getText('aaa-notes').insert(0, 'side notes')
    src.getText('default').insert(0, 'main text')
    expect(renderDocText(loaded(Y.encodeStateAsUpdate(src)))).toBe('main text')
  })

  it('anchors a quote and follows it through edits before, inside and after it', () => {
    const src = new Y.Doc()
    const t = src.getText('text')
    t.insert(0, 'The quick brown fox')
    const server = loaded(Y.encodeStateAsUpdate(src))
    const anchor = anchorQuote(server, 'quick brown')!
    expect(anchor.root).toBe('text')
    expect(anchoredText(server, anchor)).toBe('quick brown')
    t.insert(0, '>> ')
    t.insert(t.toString().indexOf('brown'), 'very ')
    t.insert(t.length, '!')
    Y.applyUpdate(server, Y.encodeStateAsUpdate(src))
    expect(anchoredText(server, anchor)).toBe('quick very brown')
    expect(anchorQuote(server, 'not there')).toBeNull()
  })
})
