// Hostile JSON bodies on the collab REST listener: nesting deeper than max-json-depth is refused
// with a 400 that says so before any handler parses it (JSON.parse of 16 MiB of brackets would
// hold the collab event loop for seconds and build hundreds of MiB of arrays).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
beforeAll(async () => {
  h = await startTandem({ maxRestBodyBytes: 1024 * 1024, maxJsonDepth: 16 }, { api: false })
})
afterAll(async () => h.close())

const nested = (n: number) => '['.repeat(n) + ']'.repeat(n)

function update(text: string): string {
  const doc = new Y.Doc()
  doc.getText('t').insert(0, text)
  return Buffer.from(Y.encodeStateAsUpdate(doc)).toString('base64')
}

async function send(method: string, api: string, doc: string, body: string, contentType = 'application/json') {
  const token = await h.token('acme', doc)
  const res = await fetch(`${h.httpUrl}/${api}/v1/acme/${doc}?yauth=${token}`, {
    method,
    headers: { 'content-type': contentType },
    body,
  })
  return { status: res.status, body: (await res.json()) as unknown }
}

const refused = { status: 400, body: { error: 'JSON body nested deeper than 16 levels', code: 'bad_request' } }

describe('collab REST: JSON nested deeper than max-json-depth', () => {
  it('PATCH /ydoc with 4 * 10^5 nested arrays is a 400 naming the limit', async () => {
    expect(await send('PATCH', 'ydoc', 'deep-1', nested(400_000))).toEqual(refused)
  })

  it('PATCH /ydoc with a valid update next to a too-deep field is refused whole, the document untouched', async () => {
    const body = `{"update":"${update('never')}","pad":${nested(17)}}`
    expect(await send('PATCH', 'ydoc', 'deep-2', body)).toEqual(refused)
    const token = await h.token('acme', 'deep-2')
    const get = (await (await fetch(`${h.httpUrl}/ydoc/v1/acme/deep-2?yauth=${token}`)).json()) as { doc: string }
    const copy = new Y.Doc()
    Y.applyUpdate(copy, Buffer.from(get.doc, 'base64'))
    expect(copy.getText('t').toString()).toBe('')
  })

  it('at the limit the same body is applied', async () => {
    const body = `{"update":"${update('kept')}","pad":${nested(15)}}`
    expect(await send('PATCH', 'ydoc', 'deep-3', body)).toEqual({ status: 200, body: { ok: true } })
  })

  it('POST /rollback (which reads JSON whatever its content type) is refused the same way', async () => {
    expect(await send('POST', 'rollback', 'deep-4', `{"to":1,"by":${nested(100_000)}}`, 'text/plain')).toEqual(refused)
  })

  it('an octet-stream update is bytes, never scanned as JSON', async () => {
    const bytes = Buffer.from(update('[[[[[[[[[[[[[[[[[[[[[[[[[['), 'base64')
    const token = await h.token('acme', 'deep-5')
    const res = await fetch(`${h.httpUrl}/ydoc/v1/acme/deep-5?yauth=${token}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    })
    expect(res.status).toBe(200)
  })
})
