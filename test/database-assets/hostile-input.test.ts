// Hostile input through the real api listener: JSON nested deeper than any stack (10^5 arrays) as
// insert data, as a text column's value and as a tool-registry PATCH body; bodies at the depth
// limit; validation errors whose input is huge; query strings whose logic trees nest thousands
// deep. Every answer is JSON with the right status, and the access log records the status the
// client actually got.
import { connect } from 'node:net'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call } from '../api/helpers.js'
import { eventually } from '../helpers/tandem.js'
import { PROVIDERS, seed, startDbWorld, type DbWorld } from './fixture.js'

const DEEP = 100_000
const nested = (n: number, inner = '') => '['.repeat(n) + inner + ']'.repeat(n)

let w: DbWorld
const lines: string[] = []
let maxDepth: number

beforeAll(async () => {
  const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) })
  w = await startDbWorld('hostile', { logLevel: 'info' }, { server: { log: pino({ level: 'info' }, sink) } })
  maxDepth = w.h.config.maxJsonDepth
  await Promise.all(PROVIDERS.map((p) => seed(w, p)))
})
afterAll(() => w?.close())

let seq = 0
/** Sends a raw JSON text with a fresh request id; returns the reply and the access-log line of it. */
async function send(method: string, path: string, body: string, key = w.world.keys.member) {
  const reqId = `hostile-${++seq}`
  const r = await call(w.h, method, path, { key, body, headers: { 'x-request-id': reqId } })
  // the access line is written once the response is sent, which may be just after the client has it
  let access: { status: number } | undefined
  await eventually(() => {
    access = lines.map((l) => JSON.parse(l)).find((l) => l.reqId === reqId && l.msg === 'api request')
    expect(access).toBeDefined()
  })
  return { ...r, access: access!, reqId }
}

/** What a body nested deeper than the limit gets: json_invalid at the first bracket too deep. */
const tooDeep = (pos: number) => ({
  detail: [
    {
      type: 'json_invalid',
      loc: ['body', pos],
      msg: 'JSON decode error',
      input: {},
      ctx: { error: `Nesting deeper than ${maxDepth} levels` },
    },
  ],
})

describe('JSON nested deeper than max-json-depth', () => {
  const insert = (p: string, table: string) => `/api/v0/databases/${w.assets[p as 'pglite'].id}/data/${table}`

  it('10^5 nested arrays as insert data: 422 json_invalid naming the depth, logged as 422', async () => {
    const prefix = '{"data":'
    const r = await send('POST', insert('pglite', 'books'), prefix + nested(DEEP) + '}')
    expect(r.headers.get('content-type')).toMatch(/^application\/json/)
    expect(r.status).toBe(422)
    // `{` is level 1, the data array level 2: the bracket at level maxDepth + 1 is the first too deep.
    expect(r.body).toEqual(tooDeep(prefix.length + maxDepth - 1))
    expect(r.access.status).toBe(422)
  })

  it('10^5 nested arrays as a text column value: 422, nothing inserted', async () => {
    const before = await w.rowsJson('pglite', 'SELECT count(*)::int AS n FROM books')
    const prefix = '{"data":{"title":'
    const r = await send('POST', insert('pglite', 'books'), prefix + nested(DEEP) + '}}')
    expect(r.status).toBe(422)
    expect(r.body).toEqual(tooDeep(prefix.length + maxDepth - 2))
    expect(r.access.status).toBe(422)
    expect(await w.rowsJson('pglite', 'SELECT count(*)::int AS n FROM books')).toBe(before)
  })

  it('10^5 nested arrays as a tool-registry PATCH body: 422, logged as 422', async () => {
    const r = await send(
      'PATCH',
      `/api/v0/workspaces/${w.world.workspaceId}/tool-registry`,
      nested(DEEP),
      w.world.keys.owner,
    )
    expect(r.status).toBe(422)
    expect(r.body).toEqual(tooDeep(maxDepth))
    expect(r.access.status).toBe(422)
  })

  it('10^5 nested objects count the same way, positions in code points', async () => {
    const prefix = '{"😀":'
    const deep = '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP)
    const r = await send(
      'PATCH',
      `/api/v0/workspaces/${w.world.workspaceId}/tool-registry`,
      prefix + deep + '}',
      w.world.keys.owner,
    )
    expect(r.status).toBe(422)
    expect(r.body).toEqual(tooDeep([...prefix].length + (maxDepth - 1) * '{"a":'.length))
  })

  it('a syntax error before the depth limit is reported first, as a parser reading left to right would', async () => {
    const r = await send(
      'PATCH',
      `/api/v0/workspaces/${w.world.workspaceId}/tool-registry`,
      '[1 2,' + nested(DEEP),
      w.world.keys.owner,
    )
    expect(r.status).toBe(422)
    expect(r.body.detail[0]).toMatchObject({
      type: 'json_invalid',
      loc: ['body', 3],
      ctx: { error: "Expecting ',' delimiter" },
    })
  })

  it.each(PROVIDERS)('%s: a jsonb value exactly at the limit is stored whole; one level more is refused', async (p) => {
    // body levels: `{` 1, data object 2, then the meta value fills the rest
    const fits = nested(maxDepth - 2, '"deep"')
    const ok = await send(
      'POST',
      insert(p, 'books'),
      `{"data":{"title":"deep ok","meta":${fits}},"return_representation":true}`,
    )
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(200)
    const stored = JSON.parse(await w.rowsJson(p, `SELECT meta FROM books WHERE title = 'deep ok'`))[0].meta
    expect(JSON.stringify(stored)).toBe(fits)
    const over = await send(
      'POST',
      insert(p, 'books'),
      `{"data":{"title":"deep over","meta":${nested(maxDepth - 1, '"deep"')}}}`,
    )
    expect(over.status).toBe(422)
    expect(over.body.detail[0].type).toBe('json_invalid')
    expect(await w.rowsJson(p, `SELECT title FROM books WHERE title = 'deep over'`)).toBe('[]')
  })
})

describe('validation errors on huge inputs', () => {
  it('a 422 echoes a bounded prefix of a huge input instead of the whole of it', async () => {
    const big = '[' + Array.from({ length: 100_000 }, (_, i) => i).join(',') + ']'
    const r = await send('PATCH', `/api/v0/workspaces/${w.world.workspaceId}/tool-registry`, big, w.world.keys.owner)
    expect(r.status).toBe(422)
    expect(r.body.detail).toHaveLength(1)
    const [e] = r.body.detail
    expect(e).toMatchObject({
      type: 'model_attributes_type',
      loc: ['body'],
      msg: 'Input should be a valid dictionary or object to extract fields from',
    })
    expect(typeof e.input).toBe('string')
    expect(e.input.startsWith('[0,1,2,3,')).toBe(true)
    expect(e.input.endsWith('...')).toBe(true)
    expect(e.input.length).toBeLessThanOrEqual(1100)
    expect(JSON.stringify(r.body).length).toBeLessThan(2000)
  })

  it('500,000 invalid insert rows are a 422 listing the first 100 errors, not a 500', async () => {
    const body = '{"data":[' + Array(500_000).fill('1').join(',') + ']}'
    const r = await send('POST', `/api/v0/databases/${w.assets.pglite.id}/data/books`, body)
    expect(r.status).toBe(422)
    expect(r.body.detail).toHaveLength(100)
    expect(r.body.detail[0]).toMatchObject({
      type: 'dict_type',
      loc: ['body', 'data'],
      msg: 'Input should be a valid dictionary',
    })
    expect(r.body.detail[1]).toEqual({
      type: 'dict_type',
      loc: ['body', 'data', 0],
      msg: 'Input should be a valid dictionary',
      input: 1,
    })
    expect(r.body.detail[99].loc).toEqual(['body', 'data', 98])
    expect(r.access.status).toBe(422)
  })

  it('a long string input is cut the same way; small inputs are echoed exactly as FastAPI does', async () => {
    const path = `/api/v0/workspaces/${w.world.workspaceId}/tool-registry`
    const long = await send(
      'PATCH',
      path,
      JSON.stringify({ default_visibility: 'x'.repeat(100_000) }),
      w.world.keys.owner,
    )
    expect(long.status).toBe(422)
    expect(long.body.detail[0].input).toBe('x'.repeat(1000) + '...')
    const small = await send('PATCH', path, JSON.stringify({ tool: [1, { a: 'b' }] }), w.world.keys.owner)
    expect(small.body.detail[0]).toEqual({
      type: 'model_attributes_type',
      loc: ['body', 'tool'],
      msg: 'Input should be a valid dictionary or object to extract fields from',
      input: [1, { a: 'b' }],
    })
  })
})

describe('query strings nested deeper than max-filter-depth', () => {
  const nestedOr = (n: number) => `(${'or('.repeat(n)}id.eq.1${')'.repeat(n)})`

  it.each(PROVIDERS)('%s: 3,500 nested or-trees are a 400 naming the parameter, not a stack overflow', async (p) => {
    const reqId = `deep-or-${p}`
    const r = await call(w.h, 'GET', `/api/v0/databases/${w.assets[p].id}/data/books?select=id&or=${nestedOr(3500)}`, {
      key: w.world.keys.member,
      headers: { 'x-request-id': reqId },
    })
    expect(r.status).toBe(400)
    expect(r.body.detail).toMatch(
      new RegExp(`^invalid query parameter "or": logic trees nest at most ${w.h.config.maxFilterDepth} levels`),
    )
    expect(lines.some((l) => l.includes(reqId) && l.includes('"level":50'))).toBe(false)
  })

  it.each(PROVIDERS)('%s: a tree exactly max-filter-depth deep is read', async (p) => {
    // the parameter's own list is level 1
    const r = await call(
      w.h,
      'GET',
      `/api/v0/databases/${w.assets[p].id}/data/books?select=id&or=${nestedOr(w.h.config.maxFilterDepth - 1)}`,
      { key: w.world.keys.member },
    )
    expect(r).toMatchObject({ status: 200, body: { data: [{ id: 1 }] } })
  })
})

describe('a client that hangs up in the middle of its body', () => {
  it('is logged as an aborted 400 in the access log, not as a failed request (no error line)', async () => {
    const reqId = 'hangup-1'
    const sock = connect(w.h.server.apiPort, '127.0.0.1')
    await new Promise<void>((r) => sock.once('connect', () => r()))
    sock.write(
      `POST /api/v0/databases/${w.assets.pglite.id}/data/books HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${w.world.keys.member}\r\n` +
        `X-Request-Id: ${reqId}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"data":`,
    )
    await new Promise((r) => setTimeout(r, 200))
    sock.destroy()
    let access: { status: number; aborted?: boolean } | undefined
    await eventually(() => {
      access = lines.map((l) => JSON.parse(l)).find((l) => l.reqId === reqId && l.msg === 'api request')
      expect(access).toBeDefined()
    })
    expect(access).toMatchObject({ status: 400, aborted: true })
    expect(lines.map((l) => JSON.parse(l)).filter((l) => l.reqId === reqId && l.level >= 50)).toEqual([])
  })
})
