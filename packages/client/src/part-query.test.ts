import { describe, expect, it } from 'vitest'
import { partQuery } from './part-query.js'

// What the server makes of these parameters: test/client/queries.test.ts (its own parser).
describe('partQuery', () => {
  it("writes each view's options under the route's own names, lists joined by commas", () => {
    expect(partQuery('section', { heading: 'Costs', offset: 2, limit: 10, base: 'B', root: 'r' })).toEqual({
      view: 'section',
      heading: 'Costs',
      offset: 2,
      limit: 10,
      base: 'B',
      root: 'r',
    })
    expect(partQuery('section', { blocks: ['b-1-2', 'b-1-9'] })).toEqual({ view: 'section', blocks: 'b-1-2,b-1-9' })
    expect(partQuery('find', { query: 'a+b', regex: true, ignore_case: true, context: 0 })).toEqual({
      view: 'find',
      query: 'a+b',
      regex: true,
      ignore_case: true,
      context: 0,
    })
  })

  it('leaves out what is not given', () => {
    expect(partQuery('outline', { heading: undefined, limit: 3 })).toEqual({ view: 'outline', limit: 3 })
  })
})
