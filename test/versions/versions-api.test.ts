// Named versions on a real server, over LevelDB and PostgreSQL: saved while stock y-websocket
// providers edit, listed, read exactly as they were, renamed under the optimistic check, deleted,
// restored with rollback {version}, and still readable after retention pruned the log.
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { docIdOf } from '../../src/storage/doc-store.js'
import { MAX_VERSIONS_PER_DOC } from '../../src/versions/record.js'
import { BACKENDS, type Backend } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

const DAY = 24 * 60 * 60 * 1000
const LONG_TTL = 90 * 24 * 60 * 60
let h: Harness
let clock: number
let backend: Backend

async function open(overrides = {}) {
  clock = Date.now()
  h = await startTandem({ ...(await backend.overrides()), ...overrides }, { api: false, now: () => clock })
}
afterEach(async () => h?.close())

type Json = Record<string, any>

async function call(method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.httpUrl}/${path}?yauth=${token}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  })
  const text = res.headers.get('content-type')?.startsWith('application/json') ? await res.text() : ''
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Json, res }
}

/** Ann edits through a live provider; `text` waits until the server has it. */
async function editor(doc: string) {
  const token = (sub = 'ann', acc: 'r' | 'rw' = 'rw') => h.token('acme', doc, { sub, acc, ttlSec: LONG_TTL })
  const ydoc = new Y.Doc()
  const p = h.provider('acme', doc, await token(), ydoc)
  await synced(p)
  const t = ydoc.getText('t')
  const serverText = async () => {
    const r = await call('GET', `ydoc/v1/acme/${doc}`, await token('carl', 'r'))
    if (!r.body?.doc) throw new Error(`ydoc GET ${r.status} ${JSON.stringify(r.body)}`)
    const d = new Y.Doc()
    Y.applyUpdate(d, Buffer.from(r.body.doc, 'base64'))
    return d.getText('t').toString()
  }
  const edit = async (change: (t: Y.Text) => void) => {
    change(t)
    const expected = t.toString()
    await eventually(async () => expect(await serverText()).toBe(expected))
  }
  return { ydoc, t, token, edit, serverText }
}

const textOf = (update: Uint8Array) => {
  const d = new Y.Doc()
  Y.applyUpdate(d, update)
  return d.getText('t').toString()
}

describe.each(BACKENDS)('named versions on $name', (b) => {
  beforeAll(() => {
    backend = b
  })

  it('saves the document as it is, lists newest first, and reads each version exactly as it was', async () => {
    await open()
    const e = await editor('saved')
    const rw = await e.token()
    await e.edit((t) => t.insert(0, 'first draft'))
    const v1 = await call('POST', 'versions/v1/acme/saved', rw, { name: 'Draft 1' })
    expect(v1.status).toBe(201)
    expect(v1.body).toMatchObject({ name: 'Draft 1', by: 'ann', created_at_ms: clock, updated_at_ms: clock })
    expect(v1.body.id).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(v1.body.seq).toBeGreaterThan(0)
    clock += 1000
    await e.edit((t) => t.insert(11, ', then more'))
    const v2 = await call('POST', 'versions/v1/acme/saved', rw, { name: 'Draft 2' })
    await e.edit((t) => t.delete(0, 6))

    const r = await e.token('carl', 'r')
    const list = await call('GET', 'versions/v1/acme/saved', r)
    expect(list.body.versions.map((v: Json) => v.name)).toEqual(['Draft 2', 'Draft 1'])
    expect(list.body.versions[1]).toEqual(v1.body)

    const one = await call('GET', `versions/v1/acme/saved/${v1.body.id}`, r)
    expect(one.body.version).toEqual(v1.body)
    expect(textOf(Buffer.from(one.body.doc, 'base64'))).toBe('first draft')
    const raw = await fetch(`${h.httpUrl}/versions/v1/acme/saved/${v2.body.id}?yauth=${r}`, {
      headers: { accept: 'application/octet-stream' },
    })
    expect(raw.headers.get('content-type')).toBe('application/octet-stream')
    expect(textOf(new Uint8Array(await raw.arrayBuffer()))).toBe('first draft, then more')
    expect(await e.serverText()).toBe('draft, then more') // the document itself moved on

    // durable: a restart reads the same versions
    await h.restart()
    const after = await call('GET', `versions/v1/acme/saved/${v2.body.id}`, r)
    expect(textOf(Buffer.from(after.body.doc, 'base64'))).toBe('first draft, then more')
  })

  it('renames under updated_at_ms: a stale one is 409 with the current record and changes nothing', async () => {
    await open()
    const e = await editor('renamed')
    const rw = await e.token()
    await e.edit((t) => t.insert(0, 'x'))
    const v = (await call('POST', 'versions/v1/acme/renamed', rw, { name: 'old' })).body
    const path = `versions/v1/acme/renamed/${v.id}`
    const first = await call('PATCH', path, rw, { name: 'Ann named it', updated_at_ms: v.updated_at_ms })
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ id: v.id, name: 'Ann named it', created_at_ms: v.created_at_ms })
    expect(first.body.updated_at_ms).toBeGreaterThan(v.updated_at_ms) // same clock, still moves
    // Bob renames from the record he read before Ann's rename
    const stale = await call('PATCH', path, await e.token('bob'), {
      name: 'Bob named it',
      updated_at_ms: v.updated_at_ms,
    })
    expect(stale.status).toBe(409)
    expect(stale.body).toMatchObject({ code: 'conflict', version: first.body })
    expect((await call('GET', path, rw)).body.version).toEqual(first.body)
    // two renames racing from the same record: exactly one wins
    const race = await Promise.all(
      ['a', 'b'].map((name) => call('PATCH', path, rw, { name, updated_at_ms: first.body.updated_at_ms })),
    )
    expect(race.map((x) => x.status).sort()).toEqual([200, 409])
  })

  it('deletes a version (204), after which it is 404 everywhere; unknown ids are 404', async () => {
    await open()
    const e = await editor('deleted')
    const rw = await e.token()
    await e.edit((t) => t.insert(0, 'x'))
    const v = (await call('POST', 'versions/v1/acme/deleted', rw, { name: 'gone soon' })).body
    const keep = (await call('POST', 'versions/v1/acme/deleted', rw, { name: 'kept' })).body
    const path = `versions/v1/acme/deleted/${v.id}`
    const del = await call('DELETE', path, rw)
    expect(del.status).toBe(204)
    expect(await del.res.text()).toBe('')
    expect((await call('GET', path, rw)).status).toBe(404)
    expect((await call('DELETE', path, rw)).status).toBe(404)
    expect((await call('PATCH', path, rw, { name: 'n', updated_at_ms: v.updated_at_ms })).status).toBe(404)
    expect((await call('GET', 'versions/v1/acme/deleted/AAAAAAAAAAAAAAAAAAAAAA', rw)).status).toBe(404)
    expect((await call('GET', 'versions/v1/acme/deleted/not-an-id', rw)).body).toMatchObject({ code: 'not_found' })
    expect((await call('POST', 'rollback/v1/acme/deleted', rw, { version: v.id })).status).toBe(404)
    expect((await call('GET', 'versions/v1/acme/deleted', rw)).body.versions).toEqual([keep])
  })

  it('refuses bad names, read-only writers and ids on other routes, changing nothing', async () => {
    await open()
    const e = await editor('refused')
    const rw = await e.token()
    const r = await e.token('carl', 'r')
    await e.edit((t) => t.insert(0, 'x'))
    const v = (await call('POST', 'versions/v1/acme/refused', rw, { name: 'ok' })).body
    const tooLong = await call('POST', 'versions/v1/acme/refused', rw, { name: 'n'.repeat(201) })
    expect(tooLong.status).toBe(422)
    expect(tooLong.body.code).toBe('validation')
    expect((await call('POST', 'versions/v1/acme/refused', rw, { name: '😀'.repeat(200) })).status).toBe(201) // characters, not bytes
    expect((await call('POST', 'versions/v1/acme/refused', rw, { name: '  ' })).status).toBe(422)
    expect((await call('POST', 'versions/v1/acme/refused', rw, { name: 5 })).status).toBe(400)
    expect((await call('POST', 'versions/v1/acme/refused', rw, '{not json')).status).toBe(400)
    expect((await call('POST', 'versions/v1/acme/refused', r, { name: 'reader' })).status).toBe(403)
    expect(
      (
        await call('PATCH', `versions/v1/acme/refused/${v.id}`, rw, {
          name: 'n'.repeat(201),
          updated_at_ms: v.updated_at_ms,
        })
      ).status,
    ).toBe(422)
    expect((await call('PATCH', `versions/v1/acme/refused/${v.id}`, rw, { name: 'no check' })).status).toBe(400)
    expect(
      (await call('PATCH', `versions/v1/acme/refused/${v.id}`, r, { name: 'x', updated_at_ms: v.updated_at_ms }))
        .status,
    ).toBe(403)
    expect((await call('DELETE', `versions/v1/acme/refused/${v.id}`, r)).status).toBe(403)
    expect((await call('GET', `ydoc/v1/acme/refused/${v.id}`, rw)).status).toBe(404)
    expect((await call('PATCH', 'versions/v1/acme/refused', rw, { name: 'x', updated_at_ms: 1 })).status).toBe(404)
    const list = (await call('GET', 'versions/v1/acme/refused', r)).body.versions
    expect(list.map((x: Json) => x.name).sort()).toEqual(['ok', '😀'.repeat(200)])
    expect(list.find((x: Json) => x.id === v.id)).toEqual(v)
  })

  it(`a document keeps at most ${MAX_VERSIONS_PER_DOC} versions: one more is 409 until one is deleted`, async () => {
    await open()
    const rw = await h.token('acme', 'capped')
    const made: Json[] = []
    for (let i = 0; i < MAX_VERSIONS_PER_DOC; i++)
      made.push((await call('POST', 'versions/v1/acme/capped', rw, { name: `v${i}` })).body)
    const over = await call('POST', 'versions/v1/acme/capped', rw, { name: 'one too many' })
    expect(over).toMatchObject({ status: 409, body: { code: 'conflict' } })
    expect((await call('GET', 'versions/v1/acme/capped', rw)).body.versions).toHaveLength(MAX_VERSIONS_PER_DOC)
    expect((await call('DELETE', `versions/v1/acme/capped/${made[0]!.id}`, rw)).status).toBe(204)
    expect((await call('POST', 'versions/v1/acme/capped', rw, { name: 'room again' })).status).toBe(201)
  }, 120_000)

  it('rollback {version} makes the document that version again, live editors included', async () => {
    await open()
    const e = await editor('restored')
    const rw = await e.token()
    await e.edit((t) => t.insert(0, 'Hello world'))
    const v = (await call('POST', 'versions/v1/acme/restored', rw, { name: 'clean' })).body
    clock += 1000
    await e.edit((t) => t.insert(5, ' brave'))
    await e.edit((t) => t.delete(0, 6)) // "Hello "
    const rb = await call('POST', 'rollback/v1/acme/restored', await e.token('bob'), { version: v.id })
    expect(rb.status).toBe(200)
    expect(rb.body.applied).toBe(true)
    await eventually(() => expect(e.t.toString()).toBe('Hello world'))
    expect(await e.serverText()).toBe('Hello world')
    const again = await call('POST', 'rollback/v1/acme/restored', rw, { version: v.id })
    expect(again.body.applied).toBe(false)
    expect((await call('POST', 'rollback/v1/acme/restored', rw, { version: v.id, to: 5 })).status).toBe(400)
  })

  it('a version stays readable and restorable after retention folded and pruned the log it was taken from', async () => {
    await open({ compactThreshold: 2, historyRetentionDays: 30 })
    const e = await editor('retained')
    const rw = await e.token()
    await e.edit((t) => t.insert(0, 'first draft'))
    const v = (await call('POST', 'versions/v1/acme/retained', rw, { name: 'month-old' })).body
    clock += 1000
    await e.edit((t) => t.delete(0, 6))
    clock += 31 * DAY
    await e.edit((t) => t.insert(0, 'final '))
    await e.edit((t) => t.insert(0, '>'))
    const act = await call('GET', 'activity/v1/acme/retained', rw)
    expect(act.body.truncated).toBe(true) // retention ran
    const seqs: number[] = []
    for await (const x of h.server.store.readLog(docIdOf('acme', 'retained'))) seqs.push(x.seq)
    expect(seqs[0]).toBeGreaterThan(v.seq) // the log the version was taken from is gone
    const read = await call('GET', `versions/v1/acme/retained/${v.id}`, rw)
    expect(textOf(Buffer.from(read.body.doc, 'base64'))).toBe('first draft')
    // "first " was deleted before the base: the history collected it, the version still has it
    const rb = await call('POST', 'rollback/v1/acme/retained', rw, { version: v.id })
    expect(rb.status).toBe(200)
    await eventually(() => expect(e.t.toString()).toBe('first draft'))
    expect(await e.serverText()).toBe('first draft')
  })
})
