// What @tandem/client writes into a URL is what the server's own parsers read back: the rows query
// (PostgREST filter language) and the part reads' options, through the client's public methods with a
// fetch that records the URL instead of sending it.
import { TandemClient } from '@tandem/client'
import { describe, expect, it } from 'vitest'
import { parseReadParams } from '../../src/api/v0/databases/query/params.js'
import { parsePartQuery } from '../../src/content/parts-params.js'

const LIMITS = { maxLimit: 1000, maxLogicDepth: 8 }
const TOKEN = {
  token: 't',
  access_type: 'r',
  doc_id: 'd',
  org: 'o',
  rest_url: 'http://127.0.0.1:1',
  ws_url: 'ws://127.0.0.1:1',
  expires_at_ms: Date.now() + 3_600_000,
  branch: 'main',
}

/** A client whose every call is answered without a network, and the URLs it asked for. */
function recording(answer: (url: URL) => unknown): { client: TandemClient; urls: URL[] } {
  const urls: URL[] = []
  const fetch = async (input: string): Promise<Response> => {
    const url = new URL(input)
    urls.push(url)
    return new Response(JSON.stringify(url.pathname.endsWith('/collab-token') ? TOKEN : answer(url)), {
      headers: { 'content-type': 'application/json' },
    })
  }
  return { client: new TandemClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k', fetch }), urls }
}

describe('rows', () => {
  it('writes the filter language the server parses back to the same query', async () => {
    const { client, urls } = recording(() => ({ data: [] }))
    await client.rows('a', 'people', {
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
    expect(urls[0]!.pathname).toBe('/api/v0/databases/a/data/people')
    const q = parseReadParams(urls[0]!.searchParams, { ...LIMITS, limit: 5, offset: 10 })
    expect(q.select).toEqual([
      { kind: 'column', column: 'id' },
      { kind: 'column', column: 'name', alias: 'who' },
    ])
    expect(q.order).toEqual([{ column: 'id', direction: 'desc', nulls: 'last' }, { column: 'name' }])
    expect(q.where).toEqual([
      { kind: 'compare', param: 'id', negate: false, column: 'id', op: 'gt', value: '3' },
      { kind: 'in', param: 'id', negate: true, column: 'id', values: ['7', 'a,b', 'say "hi"', ''] },
      { kind: 'compare', param: 'name', negate: false, column: 'name', op: 'ilike', value: '%ann%' },
      { kind: 'is', param: 'gone', negate: false, column: 'gone', value: 'null' },
      { kind: 'is', param: 'ok', negate: false, column: 'ok', value: 'true' },
    ])
  })
})

describe('part reads', () => {
  it("write each view's options as the content route parses them", async () => {
    const { client, urls } = recording(() => ({}))
    const rest = client.document('a')
    /** The content route's view of the last call's query (the token left out). */
    const parsed = () => {
      const params = new URLSearchParams(urls.at(-1)!.searchParams)
      expect(params.get('yauth')).toBe('t')
      params.delete('yauth')
      return parsePartQuery(params)
    }
    await rest.outline()
    expect(parsed()).toMatchObject({
      query: { view: 'outline', selection: { by: 'all' }, offset: 0, limit: null, base: null, root: null },
    })
    await rest.section({ heading: 'Costs', offset: 2, limit: 10, base: 'B', root: 'r' })
    expect(parsed()).toMatchObject({
      query: {
        view: 'section',
        selection: { by: 'heading', heading: 'Costs' },
        offset: 2,
        limit: 10,
        base: 'B',
        root: 'r',
      },
    })
    await rest.section({ blocks: ['b-1-2', 'b-1-9'] })
    expect(parsed()).toMatchObject({ query: { selection: { by: 'blocks', ids: ['b-1-2', 'b-1-9'], range: false } } })
    await rest.range({ blocks: 'b-1-2..b-1-9' })
    expect(parsed()).toMatchObject({
      query: { view: 'range', selection: { by: 'blocks', ids: ['b-1-2', 'b-1-9'], range: true } },
    })
    await rest.range({ lines: '40-' })
    expect(parsed()).toMatchObject({ query: { selection: { by: 'lines', from: 40, to: null } } })
    await rest.find('a+b', { regex: true, ignore_case: true, context: 0, lines: '3-9', limit: 5 })
    expect(parsed()).toMatchObject({
      query: {
        view: 'find',
        selection: { by: 'lines', from: 3, to: 9 },
        limit: 5,
        find: { query: 'a+b', regex: true, ignoreCase: true, context: 0 },
      },
    })
    expect(urls.every((u) => u.pathname === '/api/v0/assets/a/collab-token' || u.pathname === '/content/v1/o/d')).toBe(
      true,
    )
  })
})
