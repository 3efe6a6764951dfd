// One OpenAPI document for both listeners: every collab REST route of the running server's table
// is in it under its own path, served by the collab listener, and each path it lists is one the
// collab listener really answers (401 without a token, never 404 or 405).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collabRoutePaths } from '../../src/api/openapi-collab.js'
import type { RestMethod, RestRoute } from '../../src/collab/rest/route-model.js'
import { startTandem, type Harness } from '../helpers/tandem.js'
import { call } from './helpers.js'

let h: Harness
// the document, read as arbitrary JSON
let doc: any
beforeAll(async () => {
  h = await startTandem()
  doc = (await call(h, 'GET', '/api/v0/openapi.json')).body
})
afterAll(async () => h?.close())

/** Every [path, method] of the server's collab REST table. */
function tableOperations(): [string, string][] {
  const out: [string, string][] = []
  for (const [name, methods] of Object.entries(h.server.deps.restRoutes)) {
    for (const [method, route] of Object.entries(methods) as [RestMethod, RestRoute][]) {
      for (const path of collabRoutePaths(name, route)) out.push([path, method.toLowerCase()])
    }
  }
  return out
}

const collabPaths = () => Object.keys(doc.paths).filter((p) => !p.startsWith('/api/'))

describe('the OpenAPI document', () => {
  it('lists every collab REST route of the route table, and nothing else, served by the collab listener', () => {
    const expected = tableOperations()
    expect(new Set(Object.keys(h.server.deps.restRoutes))).toEqual(
      new Set([
        'ydoc',
        'content',
        'presence',
        'stream',
        'activity',
        'changeset',
        'rollback',
        'suggestions',
        'versions',
      ]),
    )
    const listed = collabPaths().flatMap((p) =>
      Object.keys(doc.paths[p])
        .filter((k) => k !== 'servers')
        .map((m) => [p, m]),
    )
    expect(new Set(listed.map((o) => o.join(' ')))).toEqual(new Set(expected.map((o) => o.join(' '))))
    for (const path of collabPaths())
      expect(doc.paths[path].servers, path).toEqual([{ url: h.httpUrl, description: 'the collab listener' }])
    // and the /api/v0 routes are still there
    expect(Object.keys(doc.paths)).toContain('/api/v0/assets/{asset_id}/collab-token')
  })

  it('describes the token, the Yjs bytes and the validated query and body', () => {
    expect(doc.components.securitySchemes.CollabToken).toMatchObject({ type: 'apiKey', in: 'query', name: 'yauth' })
    const patch = doc.paths['/ydoc/v1/{org}/{doc_id}'].patch
    expect(patch.security).toEqual([{ CollabToken: [] }, { CollabBearer: [] }])
    expect(Object.keys(patch.requestBody.content)).toEqual(['application/json', 'application/octet-stream'])
    expect(Object.keys(doc.paths['/ydoc/v1/{org}/{doc_id}'].get.responses[200].content)).toEqual([
      'application/json',
      'application/octet-stream',
    ])
    expect(doc.components.schemas.YdocChange.properties.update).toMatchObject({
      type: 'string',
      contentEncoding: 'base64',
    })
    const activity = doc.paths['/activity/v1/{org}/{doc_id}'].get.parameters.map(
      (p: { name: string; in: string }) => `${p.in}:${p.name}`,
    )
    expect(activity).toEqual(
      expect.arrayContaining([
        'path:org',
        'path:doc_id',
        'query:from',
        'query:to',
        'query:by',
        'query:order',
        'query:limit',
      ]),
    )
    const decide = doc.paths['/suggestions/v1/{org}/{doc_id}/{id}/{action}'].post
    expect(decide.parameters.find((p: { name: string }) => p.name === 'action').schema).toEqual({
      type: 'string',
      enum: ['accept', 'reject'],
    })
    expect(
      doc.paths['/versions/v1/{org}/{doc_id}/{id}'].patch.responses[409].content['application/json'].schema,
    ).toEqual({ $ref: '#/components/schemas/CollabError' })
    // every reference resolves
    for (const [, id] of JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g))
      expect(doc.components.schemas[id!], id).toBeDefined()
  })

  it('names only paths the collab listener answers', async () => {
    for (const path of collabPaths()) {
      for (const method of Object.keys(doc.paths[path]).filter((k) => k !== 'servers')) {
        const op = doc.paths[path][method]
        const action = op.parameters.find((p: { name: string }) => p.name === 'action')?.schema.enum[0]
        const url = path
          .replace('{org}', 'acme')
          .replace('{doc_id}', 'openapi')
          .replace('{id}', 'AAAAAAAAAAAAAAAAAAAAAA')
          .replace('{action}', action)
        const res = await fetch(`${h.httpUrl}${url}`, {
          method: method.toUpperCase(),
          ...(op.requestBody ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
        })
        expect([method, url, res.status]).toEqual([method, url, 401])
      }
    }
  })
})
