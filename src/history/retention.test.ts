import { describe, expect, it } from 'vitest'
import { EditLog } from '../../test/history/edit-log.js'
import { changeset } from './changeset.js'
import { boundarySeq, rebase } from './retention.js'
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
  it('finds the last entry older than the window, capped by what the log may drop', () => {
    const h = monthOfEdits().history()
    expect(boundarySeq(h, 45 * DAY, 30, Infinity)).toBe(2)
    expect(boundarySeq(h, 45 * DAY, 30, 1)).toBe(1)
    expect(boundarySeq(h, 20 * DAY, 30, Infinity)).toBeNull()
  })

  it('folds old history into a base and answers changesets after it exactly as before', async () => {
    const log = monthOfEdits()
    const h = log.history()
    const window = { from: 30 * DAY, to: 45 * DAY, by: null }
    const before = changeset(h, window)
    const next = await rebase(h, 2, (from, to) => log.read(from, to))
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
