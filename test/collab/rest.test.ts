import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { BACKENDS } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness

const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64')

function textUpdate(text: string, base?: Y.Doc): Uint8Array {
  const doc = new Y.Doc()
  if (base) Y.applyUpdate(doc, Y.encodeStateAsUpdate(base))
  const sv = Y.encodeStateVector(doc)
  doc.getText('t').insert(doc.getText('t').length, text)
  return Y.encodeStateAsUpdate(doc, sv)
}

describe.each(BACKENDS)('collab REST ($name)', (backend) => {
  beforeAll(async () => {
    h = await startTandem({ ...(await backend.overrides()), maxRestBodyBytes: 64 * 1024 }, { api: false })
  })
  afterAll(async () => h.close())

  describe('ydoc REST', () => {
    it('PATCH applies an update that a live provider sees, and GET returns it', async () => {
      const rw = await h.token('acme', 'rest1')
      const live = new Y.Doc()
      await synced(h.provider('acme', 'rest1', rw, live))
      const res = await fetch(`${h.httpUrl}/ydoc/v1/acme/rest1?yauth=${rw}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ update: b64(textUpdate('patched')) }),
      })
      expect(res.status).toBe(200)
      await eventually(() => expect(live.getText('t').toString()).toBe('patched'))

      const get = await fetch(`${h.httpUrl}/ydoc/v1/acme/rest1?yauth=${rw}`)
      expect(get.status).toBe(200)
      const { doc } = (await get.json()) as { doc: string }
      const copy = new Y.Doc()
      Y.applyUpdate(copy, Buffer.from(doc, 'base64'))
      expect(copy.getText('t').toString()).toBe('patched')
    })

    it('accepts and returns raw bytes with application/octet-stream', async () => {
      const rw = await h.token('acme', 'rest-bytes')
      const put = await fetch(`${h.httpUrl}/ydoc/v1/acme/rest-bytes?yauth=${rw}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/octet-stream' },
        body: textUpdate('raw'),
      })
      expect(put.status).toBe(200)
      const get = await fetch(`${h.httpUrl}/ydoc/v1/acme/rest-bytes?yauth=${rw}`, {
        headers: { accept: 'application/octet-stream' },
      })
      expect(get.headers.get('content-type')).toBe('application/octet-stream')
      const copy = new Y.Doc()
      Y.applyUpdate(copy, new Uint8Array(await get.arrayBuffer()))
      expect(copy.getText('t').toString()).toBe('raw')
    })

    it('with ?sv= returns only what that state lacks, smaller than the full state', async () => {
      const rw = await h.token('acme', 'rest-sv')
      const base = new Y.Doc()
      base.getText('t').insert(0, 'x'.repeat(5000))
      const url = `${h.httpUrl}/ydoc/v1/acme/rest-sv?yauth=${rw}`
      await fetch(url, {
        method: 'PATCH',
        headers: { 'content-type': 'application/octet-stream' },
        body: Y.encodeStateAsUpdate(base),
      })
      const more = textUpdate('tail', base)
      await fetch(url, { method: 'PATCH', headers: { 'content-type': 'application/octet-stream' }, body: more })
      const full = new Uint8Array(
        await (await fetch(url, { headers: { accept: 'application/octet-stream' } })).arrayBuffer(),
      )
      const sv = b64(Y.encodeStateVector(base))
      const diff = new Uint8Array(
        await (
          await fetch(`${url}&sv=${encodeURIComponent(sv)}`, { headers: { accept: 'application/octet-stream' } })
        ).arrayBuffer(),
      )
      expect(diff.length).toBeLessThan(full.length / 10)
      Y.applyUpdate(base, diff)
      expect(base.getText('t').toString().endsWith('tail')).toBe(true)
    })

    it('refuses PATCH with a read-only token (403) and leaves the document unchanged', async () => {
      const ro = await h.token('acme', 'rest-ro', { acc: 'r' })
      const res = await fetch(`${h.httpUrl}/ydoc/v1/acme/rest-ro?yauth=${ro}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/octet-stream' },
        body: textUpdate('nope'),
      })
      expect(res.status).toBe(403)
      expect(await res.json()).toEqual({ error: 'this token is read-only', code: 'read_only' })
      const get = await fetch(`${h.httpUrl}/ydoc/v1/acme/rest-ro?yauth=${ro}`, {
        headers: { accept: 'application/octet-stream' },
      })
      const copy = new Y.Doc()
      Y.applyUpdate(copy, new Uint8Array(await get.arrayBuffer()))
      expect(copy.getText('t').toString()).toBe('')
    })

    it('answers errors as {error, code} with the right status', async () => {
      const rw = await h.token('acme', 'rest-err')
      const url = `${h.httpUrl}/ydoc/v1/acme/rest-err?yauth=${rw}`
      expect((await fetch(`${h.httpUrl}/ydoc/v1/acme/rest-err`)).status).toBe(401)
      expect((await fetch(`${h.httpUrl}/ydoc/v1/acme/other?yauth=${rw}`)).status).toBe(403)
      expect((await fetch(`${h.httpUrl}/nope/v1/acme/rest-err?yauth=${rw}`)).status).toBe(404)
      const bad = await fetch(url, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: '{"update": 12}',
      })
      expect(bad.status).toBe(400)
      expect(await bad.json()).toMatchObject({ code: 'bad_request' })
      const garbage = await fetch(url, {
        method: 'PATCH',
        headers: { 'content-type': 'application/octet-stream' },
        body: Uint8Array.of(1, 2, 3, 250, 250),
      })
      expect(garbage.status).toBe(400)
      const big = await fetch(url, {
        method: 'PATCH',
        headers: { 'content-type': 'application/octet-stream' },
        body: new Uint8Array(100 * 1024),
      })
      expect(big.status).toBe(413)
      expect((await fetch(url, { method: 'PATCH', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(
        415,
      )
      // Nothing malformed reached the document.
      const get = await fetch(url, { headers: { accept: 'application/octet-stream' } })
      expect(Array.from(new Uint8Array(await get.arrayBuffer()))).toEqual([0, 0])
    })

    it('answers CORS preflights and tags responses for allowed origins', async () => {
      const pre = await fetch(`${h.httpUrl}/ydoc/v1/acme/cors`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example' },
      })
      expect(pre.status).toBe(204)
      expect(pre.headers.get('access-control-allow-methods')).toContain('PATCH')
      const rw = await h.token('acme', 'cors')
      const get = await fetch(`${h.httpUrl}/ydoc/v1/acme/cors?yauth=${rw}`, {
        headers: { origin: 'https://app.example' },
      })
      expect(get.headers.get('access-control-allow-origin')).toBe('*')
    })
  })

  describe('operational endpoints', () => {
    it('serve health, readiness, Prometheus metrics and the public JWKS', async () => {
      expect(await (await fetch(`${h.httpUrl}/healthz`)).json()).toEqual({ status: 'ok' })
      expect((await fetch(`${h.httpUrl}/readyz`)).status).toBe(200)
      const metrics = await (await fetch(`${h.httpUrl}/metrics`)).text()
      expect(metrics).toContain('tandem_ws_connections')
      expect(metrics).toContain('tandem_http_requests_total')
      // process and Node.js defaults, registered after the listener came up (src/infra/metrics.ts)
      expect(metrics).toContain('tandem_process_cpu_user_seconds_total')
      expect(metrics).toContain('tandem_nodejs_heap_size_total_bytes')
      const jwks = (await (await fetch(`${h.httpUrl}/.well-known/jwks.json`)).json()) as {
        keys: Record<string, unknown>[]
      }
      expect(jwks.keys[0]).toMatchObject({
        kty: 'OKP',
        crv: 'Ed25519',
        alg: 'EdDSA',
        kid: h.server.deps.keys.signingKid,
      })
      expect(jwks.keys[0]).not.toHaveProperty('d')
    })
  })
})
