import { describe, expect, it } from 'vitest'
import { decodeIndex, encodeIndex } from './attribution-codec.js'
import type { IndexEntry } from './attribution.js'

describe('attribution index bytes', () => {
  it('round-trips entries, including out-of-order clocks and negative time steps', () => {
    const entries: IndexEntry[] = [
      { seq: 1, at: 1_700_000_000_000, user: 'ann', inserted: 5, deleted: 0, ins: [[4_000_000_000, 0, 5]], del: [] },
      {
        seq: 3,
        at: 1_699_999_999_000,
        user: 'bob',
        inserted: 0,
        deleted: 2,
        ins: [],
        del: [
          [4_000_000_000, 3, 2],
          [7, 0, 1],
        ],
      },
      {
        seq: 4,
        at: 1_700_000_000_500,
        user: 'ann',
        inserted: 1,
        deleted: 1,
        ins: [[4_000_000_000, 5, 1]],
        del: [[4_000_000_000, 1, 1]],
      },
    ]
    expect(decodeIndex(encodeIndex(entries))).toEqual(entries)
  })

  it('costs a few bytes per edit for a typing burst', () => {
    const entries: IndexEntry[] = Array.from({ length: 10_000 }, (_, i) => ({
      seq: i + 1,
      at: 1_700_000_000_000 + i * 180,
      user: i % 2 ? 'ann@example.com' : 'bob@example.com',
      inserted: 1,
      deleted: 0,
      ins: [[i % 2 ? 11 : 22, i >> 1, 1] as const],
      del: [],
    }))
    expect(encodeIndex(entries).length / entries.length).toBeLessThan(4)
  })
})
