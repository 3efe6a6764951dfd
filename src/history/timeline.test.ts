import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { EditLog } from '../../test/history/edit-log.js'
import { DocHistory } from './timeline.js'

describe('DocHistory', () => {
  it('attributes each inserted and deleted range to the entry that first carried it', () => {
    const log = new EditLog()
    log.edit('ann', 10, (d) => d.getText('t').insert(0, 'hello'))
    log.edit('bob', 20, (d) => d.getText('t').insert(5, ' world'))
    log.edit('bob', 30, (d) => d.getText('t').delete(0, 2))
    const h = log.history()
    expect([...h.index.entries()].map((e) => [e.seq, e.user, e.at, e.inserted, e.deleted])).toEqual([
      [1, 'ann', 10, 5, 0],
      [2, 'bob', 20, 6, 0],
      [3, 'bob', 30, 0, 2],
    ])
    const ann = log.doc('ann').clientID
    const ins = h.index.insertOf(ann, 3)
    expect([h.index.user(ins.entry), ins.until]).toEqual(['ann', 5])
    const del = h.index.deleteOf(ann, 1)
    expect([h.index.user(del.entry), h.index.at(del.entry), del.until]).toEqual(['bob', 30, 2])
    expect(h.index.deleteOf(ann, 2).entry).toBe(-1)
  })

  it('re-sent content (a reconnecting client sending its whole state) adds no entry', () => {
    const log = new EditLog()
    log.edit('ann', 10, (d) => d.getText('t').insert(0, 'abc'))
    log.append('bob', 20, Y.encodeStateAsUpdate(log.doc('ann')))
    const h = log.history()
    expect(h.index.size).toBe(1)
    expect(h.lastSeq).toBe(2)
  })

  it('keeps deleted text and round-trips through its record', () => {
    const log = new EditLog()
    log.edit('ann', 10, (d) => d.getText('t').insert(0, 'gone'))
    log.edit('bob', 20, (d) => d.getText('t').delete(0, 4))
    const h = log.history()
    const again = DocHistory.decode(h.encode())
    expect(again.lastSeq).toBe(2)
    expect([...again.index.entries()]).toEqual([...h.index.entries()])
    const item = again.doc.share.get('t')!._start!
    expect(item.deleted).toBe(true)
    expect((item.content as Y.ContentString).str).toBe('gone')
  })
})
