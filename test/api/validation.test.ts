// 422 bodies compared field by field with FastAPI's, and the other foundation statuses of the api
// listener: 413, 404, 405, auth, request ids, health, metrics, JWKS, OpenAPI.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createApiApp } from '../../src/api/app.js'
import { defineRoute } from '../../src/api/route.js'
import { revokeApiKey } from '../../src/control/api-keys.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'
import { call, makeWorld } from './helpers.js'

let h: Harness | undefined
let extra: Server | undefined
afterEach(async () => {
  if (extra) await new Promise((r) => extra!.close(r))
  extra = undefined
  await h?.close()
  h = undefined
})

const registry = (ws: string) => `/api/v0/workspaces/${ws}/tool-registry`

describe('422 bodies match FastAPI', () => {
  it('missing query parameter', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'missing')
    const r = await call(h, 'GET', '/api/v0/tools/asset/content', { key: w.keys.owner })
    expect(r.status).toBe(422)
    expect(r.body).toEqual({
      detail: [{ type: 'missing', loc: ['query', 'asset_id'], msg: 'Field required', input: null }],
    })
  })

  it('non-boolean include_comments', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'bool')
    const r = await call(h, 'GET', `/api/v0/tools/asset/content?asset_id=${w.doc.id}&include_comments=maybe`, {
      key: w.keys.owner,
    })
    expect(r.status).toBe(422)
    expect(r.body).toEqual({
      detail: [
        {
          type: 'bool_parsing',
          loc: ['query', 'include_comments'],
          msg: 'Input should be a valid boolean, unable to interpret input',
          input: 'maybe',
        },
      ],
    })
  })

  it('non-integer limit', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'int')
    // A route declared like Read rows' limit, mounted on a real listener next to the server.
    const rows = defineRoute({
      method: 'get',
      path: '/test/rows',
      operationId: 'test_rows',
      summary: 'rows',
      tags: [],
      query: z.object({ limit: z.int().min(0).default(100), offset: z.int().min(0).default(0) }),
      response: z.object({ limit: z.int() }),
      async handler(_ctx, { query }) {
        return query
      },
    })
    const app = createApiApp({ deps: h.server.deps, control: h.server.deps.control, onClose: () => undefined }, [
      () => [rows],
    ])
    extra = createServer(app.callback())
    await new Promise<void>((r) => extra!.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(extra.address() as AddressInfo).port}/api/v0/test/rows`
    const get = async (q: string) => {
      const res = await fetch(url + q, { headers: { 'x-api-key': w.keys.member } })
      return { status: res.status, body: (await res.json()) as { detail: unknown[] } }
    }
    expect(await get('?limit=ten')).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'int_parsing',
            loc: ['query', 'limit'],
            msg: 'Input should be a valid integer, unable to parse string as an integer',
            input: 'ten',
          },
        ],
      },
    })
    expect((await get('?limit=1.5')).body.detail[0]).toEqual({
      type: 'int_parsing',
      loc: ['query', 'limit'],
      msg: 'Input should be a valid integer, unable to parse string as an integer',
      input: '1.5',
    })
    expect((await get('?limit=7.00')).status).toBe(200)
    expect((await get('?offset=-1')).body.detail[0]).toEqual({
      type: 'greater_than_equal',
      loc: ['query', 'offset'],
      msg: 'Input should be greater than or equal to 0',
      input: '-1',
      ctx: { ge: 0 },
    })
    expect(await get('?limit=%2025%20')).toEqual({ status: 200, body: { limit: 25, offset: 0 } })
  })

  it('bad enum in PATCH', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'enum')
    const r = await call(h, 'PATCH', registry(w.workspaceId), {
      key: w.keys.owner,
      body: { default_visibility: 'invisible', tool: { tool_id: 'web_browse', approval_mode: 'sometimes' } },
    })
    expect(r.status).toBe(422)
    expect(r.body).toEqual({
      detail: [
        {
          type: 'enum',
          loc: ['body', 'default_visibility'],
          msg: "Input should be 'visible' or 'hidden'",
          input: 'invisible',
          ctx: { expected: "'visible' or 'hidden'" },
        },
        {
          type: 'enum',
          loc: ['body', 'tool', 'approval_mode'],
          msg: "Input should be 'no_approval', 'required_with_override' or 'required_no_override'",
          input: 'sometimes',
          ctx: { expected: "'no_approval', 'required_with_override' or 'required_no_override'" },
        },
      ],
    })
  })

  it('invalid JSON body', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'json')
    const r = await call(h, 'PATCH', registry(w.workspaceId), {
      key: w.keys.owner,
      body: '{"default_visibility": "hidden",}',
    })
    expect(r.status).toBe(422)
    expect(r.body).toEqual({
      detail: [
        {
          type: 'json_invalid',
          loc: ['body', 32],
          msg: 'JSON decode error',
          input: {},
          ctx: { error: 'Expecting property name enclosed in double quotes' },
        },
      ],
    })
  })

  it('body that is not an object', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'notobj')
    for (const body of [[1, 2], 'hidden', 7]) {
      const r = await call(h, 'PATCH', registry(w.workspaceId), { key: w.keys.owner, body: JSON.stringify(body) })
      expect(r.status).toBe(422)
      expect(r.body).toEqual({
        detail: [
          {
            type: 'model_attributes_type',
            loc: ['body'],
            msg: 'Input should be a valid dictionary or object to extract fields from',
            input: body,
          },
        ],
      })
    }
    const nested = await call(h, 'PATCH', registry(w.workspaceId), { key: w.keys.owner, body: { tool: 'web_browse' } })
    expect(nested.body.detail).toEqual([
      {
        type: 'model_attributes_type',
        loc: ['body', 'tool'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: 'web_browse',
      },
    ])
  })
})

describe('api listener foundation', () => {
  it('a body that cannot be serialised is a logged JSON 500, and the access log says 500', async () => {
    const lines: string[] = []
    const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) })
    h = await startTandem({ logLevel: 'info' }, { log: pino({ level: 'info' }, sink) })
    const w = await makeWorld(h, 'unserialisable')
    let deep: unknown[] = []
    for (let i = 0; i < 100_000; i++) deep = [deep]
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const bodies: Record<string, unknown> = { deep, cyclic, bigint: { n: 1n } }
    const route = defineRoute({
      method: 'get',
      path: '/test/unserialisable/:kind',
      operationId: 'test_unserialisable',
      summary: 'returns a body JSON.stringify throws on',
      tags: [],
      params: z.object({ kind: z.string() }),
      response: z.unknown(),
      async handler(_ctx, { params }) {
        return bodies[params.kind]
      },
    })
    const app = createApiApp({ deps: h.server.deps, control: h.server.deps.control, onClose: () => undefined }, [
      () => [route],
    ])
    extra = createServer(app.callback())
    await new Promise<void>((r) => extra!.listen(0, '127.0.0.1', r))
    for (const kind of Object.keys(bodies)) {
      const res = await fetch(
        `http://127.0.0.1:${(extra.address() as AddressInfo).port}/api/v0/test/unserialisable/${kind}`,
        {
          headers: { 'x-api-key': w.keys.member, 'x-request-id': `unser-${kind}` },
        },
      )
      expect(res.status, kind).toBe(500)
      expect(res.headers.get('content-type'), kind).toMatch(/^application\/json/)
      expect(await res.json(), kind).toEqual({ detail: 'Internal Server Error' })
      await eventually(() => {
        const mine = lines.map((l) => JSON.parse(l)).filter((l) => l.reqId === `unser-${kind}`)
        expect(mine.find((l) => l.msg === 'api request')?.status, kind).toBe(500)
        expect(mine.find((l) => l.level === 50)?.err?.message, kind).toBeTruthy()
      })
    }
  })

  it('answers unknown routes 404 and wrong methods 405 with a detail body', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'routes')
    expect(await call(h, 'GET', '/api/v0/nothing-here', { key: w.keys.owner })).toMatchObject({
      status: 404,
      body: { detail: 'Not Found' },
    })
    expect(await call(h, 'GET', '/elsewhere')).toMatchObject({ status: 404, body: { detail: 'Not Found' } })
    expect(await call(h, 'DELETE', '/api/v0/me/sources', { key: w.keys.owner })).toMatchObject({
      status: 405,
      body: { detail: 'Method Not Allowed' },
    })
  })

  it('refuses bodies over the limit with 413', async () => {
    h = await startTandem({ maxBodyBytes: 2048 })
    const w = await makeWorld(h, 'big')
    const r = await call(h, 'PATCH', registry(w.workspaceId), {
      key: w.keys.owner,
      body: { default_visibility: 'hidden', pad: 'x'.repeat(4096) },
    })
    expect(r).toMatchObject({ status: 413, body: { detail: expect.stringContaining('2048') } })
  })

  it('requires a known, unrevoked X-API-KEY on every endpoint (401 detail)', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'auth')
    for (const [m, p] of [
      ['GET', registry(w.workspaceId)],
      ['PATCH', registry(w.workspaceId)],
      ['POST', `/api/v0/assets/${w.doc.id}/collab-token`],
      ['GET', '/api/v0/me/sources'],
    ]) {
      expect(await call(h, m!, p!)).toMatchObject({ status: 401, body: { detail: 'Missing API key' } })
      expect(await call(h, m!, p!, { key: 'guess' })).toMatchObject({
        status: 401,
        body: { detail: 'Invalid API key' },
      })
    }
    const keyId = w.keys.member.split('_')[1]!
    expect((await call(h, 'GET', '/api/v0/me/sources', { key: w.keys.member })).status).toBe(200)
    await revokeApiKey(h.server.deps.control.store, keyId, Date.now())
    expect((await call(h, 'GET', '/api/v0/me/sources', { key: w.keys.member })).status).toBe(401)
    // a key of the right shape with a wrong secret
    expect((await call(h, 'GET', '/api/v0/me/sources', { key: w.keys.owner.slice(0, -4) + 'AAAA' })).status).toBe(401)
  })

  it('echoes a request id, counts requests per route, and keeps keys and tokens out of the log', async () => {
    const lines: string[] = []
    const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) })
    h = await startTandem({ logLevel: 'info' }, { log: pino({ level: 'info' }, sink) })
    const w = await makeWorld(h, 'observe')
    const r = await call(h, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, {
      key: w.keys.owner,
      headers: { 'x-request-id': 'req-42' },
      body: {},
    })
    expect(r.headers.get('x-request-id')).toBe('req-42')
    expect((await call(h, 'GET', '/healthz')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const metrics = await call(h, 'GET', '/metrics')
    expect(metrics.body).toContain(
      'tandem_http_requests_total{listener="api",route="/api/v0/assets/:asset_id/collab-token",method="POST",status="403"} 1',
    )
    const log = lines.join('')
    expect(log).toContain('"reqId":"req-42"')
    expect(log).not.toContain(w.keys.owner)
    // the secret is base64url and may itself contain '_': take everything after `tdm_<id>_`
    const secret = w.keys.owner.split('_').slice(2).join('_')
    expect(secret.length).toBeGreaterThan(40)
    expect(log).not.toContain(secret)
  })

  it('serves health, the JWKS and the OpenAPI 3.1 document without a key', async () => {
    h = await startTandem()
    expect(await call(h, 'GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } })
    const jwks = await call(h, 'GET', '/.well-known/jwks.json')
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: h.server.deps.keys.signingKid })
    expect(jwks.body.keys[0].d).toBeUndefined()
    const doc = (await call(h, 'GET', '/api/v0/openapi.json')).body
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v0/workspaces/{workspace_id}/tool-registry',
        '/api/v0/assets/{asset_id}/collab-token',
        '/api/v0/tools/asset/content',
        '/api/v0/me/sources',
      ]),
    )
    const patch = doc.paths['/api/v0/workspaces/{workspace_id}/tool-registry'].patch
    expect(patch.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/UpdateWorkspaceToolRegistryRequestIn',
    })
    expect(doc.components.schemas.UpdateWorkspaceToolRegistryRequestIn.properties.tool).toEqual({
      anyOf: [{ $ref: '#/components/schemas/UpdateWorkspaceToolRegistryToolIn' }, { type: 'null' }],
    })
    expect(doc.components.schemas.UpdateWorkspaceToolRegistryToolIn.required).toEqual(['tool_id'])
    // every $ref points at a component that exists and is not itself a bare reference
    const refs = [...JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!)
    for (const id of refs) expect(doc.components.schemas[id]?.$ref, id).toBeUndefined()
    for (const id of refs) expect(doc.components.schemas[id], id).toBeDefined()
    expect(doc.paths['/api/v0/tools/asset/content'].get.parameters).toEqual([
      { name: 'asset_id', in: 'query', required: true, schema: { type: 'string', maxLength: 200 } },
      { name: 'include_comments', in: 'query', required: false, schema: { type: 'boolean', default: false } },
      // beyond the spec (docs/api-v0.md): a generic_doc as Markdown
      {
        name: 'format',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ type: 'string', enum: ['text', 'markdown'], default: 'text' }),
      },
    ])
    expect(doc.components.securitySchemes.APIKeyHeader).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-KEY' })
  })
})
