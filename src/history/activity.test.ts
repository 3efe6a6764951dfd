import { describe, expect, it } from 'vitest'
import { AttributionIndex, type IndexEntry } from './attribution.js'
import { activity, type ActivityQuery } from './activity.js'

let seq = 0
const e = (user: string, at: number, inserted = 1, deleted = 0): IndexEntry => ({
  seq: ++seq,
  at,
  user,
  inserted,
  deleted,
  ins: [],
  del: [],
})
const q = (over: Partial<ActivityQuery> = {}): ActivityQuery => ({
  from: 0,
  to: Infinity,
  by: null,
  limit: 100,
  order: 'desc',
  group: true,
  groupMaxGap: 1000,
  ...over,
})
function indexOf(list: IndexEntry[]): AttributionIndex {
  const index = new AttributionIndex()
  for (const x of list) index.add(x)
  return index
}
const brief = (r: ReturnType<typeof activity>) => r.groups.map((g) => [g.by, g.from, g.to, g.inserted, g.deleted])

// ann types in two bursts, bob types in between and while ann's first burst runs
const entries = indexOf([
  e('ann', 0),
  e('ann', 500),
  e('bob', 600, 2),
  e('ann', 1400),
  e('bob', 5000, 0, 3),
  e('ann', 9000),
  e('ann', 9999),
])

describe('activity', () => {
  it('groups each user’s edits closer than the gap, newest first', () => {
    expect(brief(activity(entries, q()))).toEqual([
      ['ann', 9000, 9999, 2, 0],
      ['bob', 5000, 5000, 0, 3],
      ['ann', 0, 1400, 3, 0],
      ['bob', 600, 600, 2, 0],
    ])
  })

  it('orders oldest first with order=asc and cuts at the limit', () => {
    const r = activity(entries, q({ order: 'asc', limit: 2 }))
    expect(brief(r)).toEqual([
      ['ann', 0, 1400, 3, 0],
      ['bob', 600, 600, 2, 0],
    ])
    expect(r.more).toBe(true)
  })

  it('a gap at or above groupMaxGap starts a new entry; group=false lists every edit', () => {
    expect(brief(activity(entries, q({ groupMaxGap: 999, by: new Set(['ann']) }))).map((g) => g[1])).toEqual([
      9999, 9000, 0,
    ])
    expect(activity(entries, q({ group: false })).groups).toHaveLength(entries.size)
  })

  it('filters by window (inclusive) and users', () => {
    expect(brief(activity(entries, q({ from: 600, to: 5000 })))).toEqual([
      ['bob', 5000, 5000, 0, 3],
      ['ann', 1400, 1400, 1, 0],
      ['bob', 600, 600, 2, 0],
    ])
    expect(brief(activity(entries, q({ by: new Set(['bob']), group: false }))).map((g) => g[0])).toEqual(['bob', 'bob'])
  })
})
