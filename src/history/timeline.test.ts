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
    expect(h.index.entries.map((e) => [e.seq, e.user, e.at, e.inserted, e.deleted])).toEqual([
      [1, 'ann', 10, 5, 0],
      [2, 'bob', 20, 6, 0],
      [3, 'bob', 30, 0, 2],
    ])
    const ann = log.doc('ann').clientID
    expect(h.index.insertOf(ann, 3)).toMatchObject({ entry: { user: 'ann' }, until: 5 })
    expect(h.index.deleteOf(ann, 1)).toMatchObject({ entry: { user: 'bob', at: 30 }, until: 2 })
    expect(h.index.deleteOf(ann, 2).entry).toBeNull()
  })

  it('re-sent content (a reconnecting client sending its whole state) adds no entry', () => {
    const log = new EditLog()
    log.edit('ann', 10, (d) => d.getText('t').insert(0, 'abc'))
    log.append('bob', 20, Y.encodeStateAsUpdate(log.doc('ann')))
    const h = log.history()
    expect(h.index.entries).toHaveLength(1)
    expect(h.lastSeq).toBe(2)
  })

  it('keeps deleted text and round-trips through its record', () => {
    const log = new EditLog()
    log.edit('ann', 10, (d) => d.getText('t').insert(0, 'gone'))
    log.edit('bob', 20, (d) => d.getText('t').delete(0, 4))
    const h = log.history()
    const again = DocHistory.decode(h.encode())
    expect(again.lastSeq).toBe(2)
    expect(again.index.entries).toEqual(h.index.entries)
    const item = again.doc.share.get('t')!._start!
    expect(item.deleted).toBe(true)
    expect((item.content as Y.ContentString).str).toBe('gone')
  })
})
