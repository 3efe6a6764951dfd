import { describe, expect, it } from 'vitest'
import { renewDelayMs } from './document.js'
import { rowsSearchParams } from './rows-query.js'

describe('rowsSearchParams', () => {
  it('writes the filter language (test/client/queries.test.ts: the server parses it back)', () => {
    const p = rowsSearchParams({
      select: ['id', 'who:name'],
      order: [{ column: 'id', direction: 'desc', nulls: 'last' }, { column: 'name' }],
      limit: 5,
      offset: 10,
      where: {
        id: [{ gt: 3 }, { not: { in: [7, 'a,b', 'say "hi"', ''] } }],
        name: { ilike: '*ann*' },
        gone: { is: null },
        ok: { is: true },
      },
    })
    expect(p.toString()).toBe(
      'select=id%2Cwho%3Aname&order=id.desc.nullslast%2Cname&limit=5&offset=10&id=gt.3&id=not.in.%287%2C%22a%2Cb%22%2C%22say+%5C%22hi%5C%22%22%2C%22%22%29&name=ilike.*ann*&gone=is.null&ok=is.true',
    )
  })

  it('refuses a column named like a reserved parameter', () => {
    expect(() => rowsSearchParams({ where: { order: { eq: 1 } } })).toThrow(/reserved/)
  })
})

describe('renewDelayMs', () => {
  it('renews when a fifth of the lifetime is left, between 5 s and a minute early', () => {
    expect(renewDelayMs(10_000, 0)).toBe(5_000)
    expect(renewDelayMs(100_000, 0)).toBe(80_000)
    expect(renewDelayMs(600_000, 0)).toBe(540_000)
    expect(renewDelayMs(1_000, 2_000)).toBe(0)
  })
})
