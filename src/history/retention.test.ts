import { describe, expect, it } from 'vitest'
import { EditLog } from '../../test/history/edit-log.js'
import { changeset } from './changeset.js'
import { foldPoint, rebase } from './retention.js'
import { DocHistory } from './timeline.js'

const DAY = 24 * 60 * 60 * 1000

function monthOfEdits(): EditLog {
  const log = new EditLog()
  log.edit('ann', 1 * DAY, (d) => d.getText('t').insert(0, 'old draft'))
  log.edit('ann', 2 * DAY, (d) => d.getText('t').delete(0, 4)) // "old " gone before the window
  log.edit('bob', 40 * DAY, (d) => d.getText('t').insert(9 - 4, ' v2'))
  log.edit('ann', 41 * DAY, (d) => d.getText('t').delete(0, 5)) // "draft" deleted inside the window
  return log
}

describe('retention', () => {
  it('finds the last entry older than the window, capped by what the log may drop, asking the cap only when one qualifies', async () => {
    const log = monthOfEdits()
    let asked = 0
    const cap = (seq: number) => async () => (asked++, seq)
    expect(await foldPoint(log.read(), 45 * DAY, 30, cap(Infinity))).toEqual({ seq: 2, at: 2 * DAY })
    expect(await foldPoint(log.read(), 45 * DAY, 30, cap(1))).toEqual({ seq: 1, at: 1 * DAY })
    expect(asked).toBe(2)
    expect(await foldPoint(log.read(), 20 * DAY, 30, cap(Infinity))).toBeNull()
    expect(await foldPoint(log.read(3), 45 * DAY, 30, cap(Infinity))).toBeNull() // nothing older after the base
    expect(asked).toBe(2)
  })

  it('folds old history into a base and answers changesets after it exactly as before', () => {
    const log = monthOfEdits()
    const h = log.history()
    const window = { from: 30 * DAY, to: 45 * DAY, by: null }
    const before = changeset(h, window)
    const next = rebase(h, 2, log.entries)
    expect(next.base).toMatchObject({ seq: 2, at: 2 * DAY })
    expect([...next.index.entries()].map((e) => e.seq)).toEqual([3, 4])
    expect(changeset(next, window)).toEqual(before)
    const again = DocHistory.decode(next.encode())
    expect(changeset(again, window)).toEqual(before)
    expect(before.roots.t!.delta).toEqual([
      { insert: 'draft', attribution: { delete: ['ann'], deleteAt: 41 * DAY } },
      { insert: ' v2', attribution: { insert: ['bob'], insertAt: 40 * DAY } },
    ])
  })
})
