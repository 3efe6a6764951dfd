import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { EditLog } from '../../test/history/edit-log.js'
import { documentAt } from './document-at.js'

function replayed(log: EditLog, time: number): Y.Doc {
  const d = new Y.Doc()
  for (const e of log.entries) if (e.at <= time) Y.applyUpdate(d, e.update)
  return d
}

describe('documentAt', () => {
  it('equals replaying the log up to each moment, text and XML alike', () => {
    const log = new EditLog()
    log.edit('ann', 10, (d) => d.getText('t').insert(0, 'hello world'))
    log.edit('bob', 20, (d) => d.getText('t').delete(0, 6))
    log.edit('bob', 30, (d) => {
      const p = new Y.XmlElement('p')
      p.insert(0, [new Y.XmlText('para')])
      d.getXmlFragment('x').insert(0, [p])
    })
    log.edit('ann', 40, (d) => d.getText('t').insert(5, '!'))
    log.edit('ann', 50, (d) => d.getXmlFragment('x').delete(0, 1))
    const h = log.history()
    for (const time of [0, 10, 15, 20, 30, 40, 50]) {
      const cut = new Y.Doc()
      Y.applyUpdate(cut, documentAt(h, time))
      const want = replayed(log, time)
      expect([cut.getText('t').toString(), cut.getXmlFragment('x').toString()], `at ${time}`).toEqual([
        want.getText('t').toString(),
        want.getXmlFragment('x').toString(),
      ])
    }
  })
})
