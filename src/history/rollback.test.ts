import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { EditLog } from '../../test/history/edit-log.js'
import { rollback } from './rollback.js'
import { wantAt, wantWithout } from './rollback-wants.js'

function applied(log: EditLog, user: string, at: number, update: Uint8Array | null): Y.Doc {
  expect(update).not.toBeNull()
  log.append(user, at, update!)
  return log.shared
}

describe('rollback', () => {
  it('brings text back to its state at a time: later inserts go, later deletions come back', () => {
    const log = new EditLog()
    log.edit('ann', 100, (d) => d.getText('t').insert(0, 'The cat sat'))
    log.edit('bob', 200, (d) => d.getText('t').insert(7, ' happily'))
    log.edit('ann', 300, (d) => d.getText('t').delete(0, 4))
    const r = rollback(log.history(), wantAt(150))
    expect(r).toMatchObject({ removed: 8, restored: 4 })
    expect(applied(log, 'carl', 500, r.update).getText('t').toString()).toBe('The cat sat')
  })

  it('undoes only one user’s changes in a window', () => {
    const log = new EditLog()
    log.edit('ann', 100, (d) => d.getText('t').insert(0, 'abc'))
    log.edit('bob', 200, (d) => d.getText('t').insert(3, 'XYZ'))
    log.edit('ann', 210, (d) => d.getText('t').insert(0, '>'))
    log.edit('bob', 220, (d) => d.getText('t').delete(1, 1)) // "a"
    const r = rollback(log.history(), wantWithout(150, 250, new Set(['bob'])))
    expect(applied(log, 'carl', 500, r.update).getText('t').toString()).toBe('>abc')
  })

  it('restores a deleted XML element with its attributes and text', () => {
    const log = new EditLog()
    log.edit('ann', 100, (d) => {
      const p = new Y.XmlElement('paragraph')
      p.setAttribute('align', 'left')
      p.insert(0, [new Y.XmlText('keep me')])
      d.getXmlFragment('pm').insert(0, [p])
    })
    log.edit('bob', 200, (d) => d.getXmlFragment('pm').delete(0, 1))
    const r = rollback(log.history(), wantAt(150))
    expect(applied(log, 'carl', 500, r.update).getXmlFragment('pm').toString()).toBe(
      '<paragraph align="left">keep me</paragraph>',
    )
  })

  it('is a no-op when the document already is as wanted', () => {
    const log = new EditLog()
    log.edit('ann', 100, (d) => d.getText('t').insert(0, 'same'))
    expect(rollback(log.history(), wantAt(150))).toEqual({ update: null, removed: 0, restored: 0, reformatted: 0 })
  })

  it('restores map values overwritten after the time', () => {
    const log = new EditLog()
    log.edit('ann', 100, (d) => d.getMap('m').set('k', 1))
    log.edit('bob', 200, (d) => d.getMap('m').set('k', 2))
    log.edit('bob', 210, (d) => d.getMap('m').set('new', true))
    const r = rollback(log.history(), wantAt(150))
    expect(applied(log, 'carl', 500, r.update).getMap('m').toJSON()).toEqual({ k: 1 })
  })

  it('gives text back its formatting: bold added after the time goes, bold removed comes back', () => {
    const log = new EditLog()
    log.edit('ann', 100, (d) => {
      d.getText('t').insert(0, 'one two three')
      d.getText('t').format(0, 3, { bold: true })
    })
    log.edit('bob', 200, (d) => {
      d.getText('t').format(0, 3, { bold: null })
      d.getText('t').format(4, 3, { italic: true })
    })
    const r = rollback(log.history(), wantAt(150))
    expect(r).toMatchObject({ removed: 0, restored: 0, reformatted: 6 })
    expect(applied(log, 'carl', 500, r.update).getText('t').toDelta()).toEqual([
      { insert: 'one', attributes: { bold: true } },
      { insert: ' two three' },
    ])
  })
})
