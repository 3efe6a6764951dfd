// The three-way side of computeEdit on real Yjs documents: a base, others' edits since (the
// document now), and the agent's content from the base. What the agent repeats at the place others
// inserted it is left out; anything else is the agent's and is kept.
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { echoed } from './concurrent.js'
import { computeEdit, readContent, type EditInput } from './formats.js'

/**
 * The base as Markdown, a person's change since, and the document after the agent's write of `content` from the base.
 */
function merge(
  baseMd: string,
  person: (d: Y.Doc) => void,
  content: string,
  format: EditInput['format'] = 'markdown',
): string {
  const base = new Y.Doc()
  const seed = computeEdit(Y.encodeStateAsUpdate(base), { format, content: baseMd, root: null }).update!
  Y.applyUpdate(base, seed)
  const baseState = Y.encodeStateAsUpdate(base)
  const now = new Y.Doc()
  Y.applyUpdate(now, baseState)
  now.transact(() => person(now))
  const edit = computeEdit(baseState, { format, content, root: null }, Y.encodeStateAsUpdate(now))
  if (edit.update) Y.applyUpdate(now, edit.update)
  return readContent(Y.encodeStateAsUpdate(now), format, null).content as string
}

const frag = (d: Y.Doc) => d.getXmlFragment('default')
const textIn = (el: Y.XmlElement) => el.get(0) as Y.XmlText
const child = (d: Y.Doc, ...path: number[]) =>
  path.reduce<Y.XmlElement | Y.XmlFragment>((at, i) => at.get(i) as Y.XmlElement, frag(d)) as Y.XmlElement

describe('a write repeating what others inserted since its base', () => {
  it('the same text at the same place is inserted once, whichever way the diff spells it', () => {
    expect(merge('Hello world.\n', (d) => textIn(child(d, 0)).insert(5, ' dear'), 'Hello dear world.\n')).toBe(
      'Hello dear world.\n',
    )
    expect(merge('Hello world.\n', (d) => textIn(child(d, 0)).insert(6, 'dear '), 'Hello dear world.\n')).toBe(
      'Hello dear world.\n',
    )
  })

  it('a person who deleted and typed since: the gaps still count the base', () => {
    const md = merge(
      'One two three.\n',
      (d) => {
        textIn(child(d, 0)).delete(0, 4)
        textIn(child(d, 0)).insert(3, ' and a half')
      },
      'One two and a half three.\n',
    )
    expect(md).toBe('two and a half three.\n')
  })

  it('a list item a person added inside a list, also in the write, is there once', () => {
    const md = merge(
      '- one\n- two\n',
      (d) => {
        const li = new Y.XmlElement('listItem')
        const p = new Y.XmlElement('paragraph')
        p.insert(0, [new Y.XmlText('between')])
        li.insert(0, [p])
        child(d, 0).insert(1, [li])
      },
      '- one\n- between\n- two\n\nAfter.\n',
    )
    expect(md).toBe('- one\n- between\n- two\n\nAfter.\n')
  })

  it('a plain text root: what a person typed is not typed again', () => {
    const md = merge('abc def', (d) => d.getText('text').insert(3, ' xyz'), 'abc xyz def!', 'text')
    expect(md).toBe('abc xyz def!')
  })

  it('kept: the same text at another place, and an insertion that only partly overlaps theirs', () => {
    expect(merge('One.\n\nTwo.\n', (d) => textIn(child(d, 0)).insert(3, ' late0'), 'One.\n\nTwo late0.\n')).toBe(
      'One late0.\n\nTwo late0.\n',
    )
    // the agent's insertion holds theirs and more: where its rest would go among theirs is Yjs's
    // tie-break between concurrent insertions, so it is not split and both stand
    const partial = merge('One.\n', (d) => textIn(child(d, 0)).insert(3, ' late0'), 'One late0 more.\n')
    expect(partial.split('late0').length - 1).toBe(2)
  })
})

describe('echoed', () => {
  const others = new Map([[5, ' dear']])
  it('finds an insertion in what others typed at its gap, in any spelling that borders the base', () => {
    expect(echoed(others, 'Hello world.', 5, ' dear')).toBe(true)
    expect(echoed(others, 'Hello world.', 6, 'dear ')).toBe(true)
    expect(echoed(others, 'Hello world.', 5, 'dea')).toBe(true)
    expect(echoed(others, 'Hello world.', 7, 'ear w')).toBe(false)
    expect(echoed(others, 'Hello world.', 0, ' dear')).toBe(false)
  })
})
