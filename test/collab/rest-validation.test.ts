// Every collab REST family refuses a malformed query or body the way it always has: 400
// `bad_request` (or 422 `validation` for values past their limits, 415 for another media type)
// with a message naming the problem, checked by the route model before any handler runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
let rw: string
beforeAll(async () => {
  h = await startTandem()
  rw = await h.token('acme', 'malformed', { ttlSec: 3600 })
})
afterAll(async () => h?.close())

async function call(method: string, name: string, query: string, body?: string, type = 'application/json') {
  const res = await fetch(`${h.httpUrl}/${name}/v1/acme/malformed?yauth=${rw}${query ? `&${query}` : ''}`, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': type } }),
  })
  return { status: res.status, body: (await res.json()) as { error: string; code: string } }
}

const bad = (error: string) => ({ status: 400, body: { error, code: 'bad_request' } })
const unprocessable = (error: string) => ({ status: 422, body: { error, code: 'validation' } })

describe('collab REST validation', () => {
  const cases: [string, string, string, string | undefined, ReturnType<typeof bad>][] = [
    ['GET', 'ydoc', 'sv=%%%', undefined, bad('sv is not base64')],
    ['GET', 'ydoc', 'awareness=maybe', undefined, bad('awareness must be true or false, got "maybe"')],
    ['PATCH', 'ydoc', '', '{not json', bad('body is not valid JSON')],
    [
      'PATCH',
      'ydoc',
      '',
      '{}',
      bad('body must be {"update": "<base64 Yjs update>"} and/or {"awareness": "<base64 awareness update>"}'),
    ],
    ['PATCH', 'ydoc', '', '{"update": 5}', bad('update must be a base64 Yjs update')],
    [
      'PATCH',
      'ydoc',
      '',
      '{"update": "AA", "attributions": {"Bad": "x"}}',
      unprocessable('attribution key "Bad" must match [a-z0-9_]{1,32}'),
    ],
    ['GET', 'content', 'format=docx', undefined, bad('format must be one of markdown, prosemirror, text')],
    [
      'PATCH',
      'content',
      '',
      '[]',
      bad('body must be a JSON object {"format", "content", "base"?, "root"?} or {"edits": [...], "base"?, "root"?}'),
    ],
    ['PATCH', 'content', '', '{"format": "markdown"}', bad('content is required (or edits)')],
    ['PATCH', 'content', '', '{"format": "text", "content": 1}', bad('content must be a string for format=text')],
    [
      'PATCH',
      'content',
      '',
      '{"content": "x", "edits": [{"delete": "b-1"}]}',
      bad('send content (a whole document) or edits, not both'),
    ],
    ['PATCH', 'content', '', '{"edits": []}', bad('edits is empty: send at least one edit')],
    [
      'PATCH',
      'content',
      '',
      '{"format": "markdown", "content": "x", "mode": "now"}',
      bad('mode must be apply or suggest'),
    ],
    ['GET', 'activity', 'order=newest', undefined, bad('order must be asc or desc, got "newest"')],
    ['GET', 'activity', 'from=1.5', undefined, bad('from must be a non-negative integer (ms), got "1.5"')],
    [
      'GET',
      'changeset',
      'attr=nocolon',
      undefined,
      bad('attr must be key:value with a key of [a-z0-9_]{1,32}, got "nocolon"'),
    ],
    ['POST', 'rollback', '', '{"from": 5}', bad('to must be a non-negative integer (ms)')],
    ['POST', 'rollback', '', '{"version": "v", "to": 5}', bad('version goes alone: {"version": id}')],
    [
      'GET',
      'suggestions',
      'status=pending',
      undefined,
      bad('status must be one of open, accepted, partially_accepted, rejected, withdrawn'),
    ],
    ['POST', 'suggestions', '', '{"update": 7}', bad('update must be a base64 Yjs update')],
    [
      'POST',
      'suggestions',
      '',
      '{"format": "docx"}',
      bad('format must be one of markdown, prosemirror, text (or send "update")'),
    ],
    ['POST', 'versions', '', '{"name": 5}', bad('name must be a string')],
    ['POST', 'versions', '', '{"name": "  "}', unprocessable('name must not be empty')],
    [
      'POST',
      'versions',
      '',
      `{"name": "${'n'.repeat(201)}"}`,
      unprocessable('name must be at most 200 characters, got 201'),
    ],
  ]
  for (const [method, name, query, body, expected] of cases) {
    it(`${method} ${name} ${query || body} is ${expected.status}: ${expected.body.error.slice(0, 60)}`, async () => {
      expect(await call(method, name, query, body)).toEqual(expected)
    })
  }

  it('a media type the route does not take is 415 saying what to send', async () => {
    expect(await call('PATCH', 'ydoc', '', 'x', 'text/plain')).toEqual({
      status: 415,
      body: {
        error: 'send application/json {"update": base64} or application/octet-stream',
        code: 'unsupported_media_type',
      },
    })
  })

  it("versions and rollback read their body as JSON whatever its type, as they always did (fetch's text/plain)", async () => {
    const created = await call('POST', 'versions', '', JSON.stringify({ name: 'plain' }), 'text/plain;charset=UTF-8')
    expect(created.status).toBe(201)
    const form = await call(
      'POST',
      'versions',
      '',
      JSON.stringify({ name: 'form' }),
      'application/x-www-form-urlencoded',
    )
    expect(form.status).toBe(201)
    expect((await call('POST', 'versions', '', '{"name": 5}', 'text/plain')).status).toBe(400)
    expect(await call('POST', 'rollback', '', '{not json', 'text/plain')).toEqual(bad('body is not valid JSON'))
  })
})
