import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { EditLog } from '../../test/history/edit-log.js'
import { changeset } from './changeset.js'

function twoUsers(): EditLog {
  const log = new EditLog()
  log.edit('ann', 100, (d) => d.getText('t').insert(0, 'The cat sat'))
  log.edit('bob', 200, (d) => d.getText('t').insert(7, ' happily'))
  log.edit('ann', 300, (d) => d.getText('t').delete(4, 3)) // "cat"
  log.edit('bob', 400, (d) => d.getText('t').insert(4, 'dog'))
  return log
}

describe('changeset', () => {
  it('marks the window inserts and keeps its deletions, with who and when', () => {
    const cs = changeset(twoUsers().history(), { from: 150, to: 350, by: null })
    expect(cs.roots.t).toEqual({
      type: 'text',
      delta: [
        { insert: 'The ' },
        { insert: 'cat', attribution: { delete: ['ann'], deleteAt: 300 } },
        { insert: ' happily', attribution: { insert: ['bob'], insertAt: 200 } },
        { insert: ' sat' },
      ],
    })
    expect(cs).toMatchObject({ inserted: 8, deleted: 3, by: ['ann', 'bob'] })
  })

  it('shows the document at `to`: later edits are absent, earlier deletions are gone', () => {
    const cs = changeset(twoUsers().history(), { from: 350, to: 400, by: null })
    expect(cs.roots.t!.delta).toEqual([
      { insert: 'The ' },
      { insert: 'dog', attribution: { insert: ['bob'], insertAt: 400 } },
      { insert: ' happily sat' },
    ])
  })

  it('marks only the listed users; others’ inserts show plain and their deletions stay gone', () => {
    const cs = changeset(twoUsers().history(), { from: 0, to: 400, by: new Set(['bob']) })
    expect(cs.roots.t!.delta).toEqual([
      { insert: 'The ' },
      { insert: 'dog', attribution: { insert: ['bob'], insertAt: 400 } },
      { insert: ' happily', attribution: { insert: ['bob'], insertAt: 200 } },
      { insert: ' sat' },
    ])
  })

  it('walks XML fragments: elements with attributes and the marked text inside them', () => {
    const log = new EditLog()
    log.edit('ann', 100, (d) => {
      const p = new Y.XmlElement('paragraph')
      p.setAttribute('align', 'left')
      p.insert(0, [new Y.XmlText('first')])
      d.getXmlFragment('pm').insert(0, [p])
    })
    log.edit('bob', 200, (d) => {
      const p = new Y.XmlElement('heading')
      p.insert(0, [new Y.XmlText('title')])
      d.getXmlFragment('pm').insert(0, [p])
      ;((d.getXmlFragment('pm').get(1) as Y.XmlElement).get(0) as Y.XmlText).insert(5, '!')
    })
    const cs = changeset(log.history(), { from: 150, to: 250, by: null })
    const bob = { insert: ['bob'], insertAt: 200 }
    expect(cs.roots.pm).toEqual({
      type: 'xml',
      delta: [
        { element: 'heading', attribution: bob, children: [{ insert: 'title', attribution: bob }] },
        {
          element: 'paragraph',
          attributes: { align: 'left' },
          children: [{ insert: 'first' }, { insert: '!', attribution: bob }],
        },
      ],
    })
  })

  it('keeps formatting in force at `to` on the runs', () => {
    const log = new EditLog()
    log.edit('ann', 100, (d) => d.getText('t').insert(0, 'plain bold'))
    log.edit('bob', 200, (d) => d.getText('t').format(6, 4, { bold: true }))
    const cs = changeset(log.history(), { from: 150, to: 250, by: null })
    expect(cs.roots.t!.delta).toEqual([{ insert: 'plain ' }, { insert: 'bold', attributes: { bold: true } }])
  })

  it('lists map keys and array values with the same marks', () => {
    const log = new EditLog()
    log.edit('ann', 100, (d) => {
      d.getMap('m').set('title', 'Draft')
      d.getArray('a').insert(0, [1, 2])
    })
    log.edit('bob', 200, (d) => {
      d.getMap('m').set('title', 'Final')
      d.getArray('a').delete(0, 1)
      d.getArray('a').push([3])
    })
    const cs = changeset(log.history(), { from: 150, to: 250, by: null })
    const bob = { insert: ['bob'], insertAt: 200 }
    expect(cs.roots.m).toEqual({ type: 'map', delta: [{ insert: { title: 'Final' }, attribution: bob }] })
    expect(cs.roots.a).toEqual({
      type: 'array',
      delta: [
        { insert: [1], attribution: { delete: ['bob'], deleteAt: 200 } },
        { insert: [2] },
        { insert: [3], attribution: bob },
      ],
    })
  })
})
