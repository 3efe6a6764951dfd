import { describe, expect, it } from 'vitest'
import { parsePartQuery } from '../../../src/content/parts-params.js'
import { partQuery } from './part-query.js'

/** The query string as DocumentRest.url writes it, parsed by the server's own parser. */
const parsed = (q: Record<string, string | number | boolean>) => parsePartQuery(new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])))

describe('partQuery', () => {
  it('writes each view\'s options as the content route parses them', () => {
    expect(parsed(partQuery('outline', {}))).toMatchObject({ query: { view: 'outline', selection: { by: 'all' }, offset: 0, limit: null, base: null, root: null } })
    expect(parsed(partQuery('section', { heading: 'Costs', offset: 2, limit: 10, base: 'B', root: 'r' }))).toMatchObject({
      query: { view: 'section', selection: { by: 'heading', heading: 'Costs' }, offset: 2, limit: 10, base: 'B', root: 'r' },
    })
    expect(parsed(partQuery('section', { blocks: ['b-1-2', 'b-1-9'] }))).toMatchObject({ query: { selection: { by: 'blocks', ids: ['b-1-2', 'b-1-9'], range: false } } })
    expect(parsed(partQuery('range', { blocks: 'b-1-2..b-1-9' }))).toMatchObject({ query: { view: 'range', selection: { by: 'blocks', ids: ['b-1-2', 'b-1-9'], range: true } } })
    expect(parsed(partQuery('range', { lines: '40-' }))).toMatchObject({ query: { selection: { by: 'lines', from: 40, to: null } } })
    expect(parsed(partQuery('find', { query: 'a+b', regex: true, ignore_case: true, context: 0, lines: '3-9', limit: 5 }))).toMatchObject({
      query: { view: 'find', selection: { by: 'lines', from: 3, to: 9 }, limit: 5, find: { query: 'a+b', regex: true, ignoreCase: true, context: 0 } },
    })
  })

  it('leaves out what is not given', () => {
    expect(partQuery('outline', { heading: undefined, limit: 3 })).toEqual({ view: 'outline', limit: 3 })
  })
})
