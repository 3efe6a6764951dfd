// Custom attributions on a real server, over LevelDB and PostgreSQL: an agent's token carries
// `{source: "ai", model: "m1"}`; its edits (stock y-websocket provider and PATCH /ydoc) are stored
// with them, activity and changeset show them and filter by them, and a rollback undoes exactly
// what the agent did while the person's later edit stays.
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { docIdOf } from '../../src/storage/doc-store.js'
import { BACKENDS, type Backend } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
let t0: number
let clock: number
let backend: Backend
afterEach(async () => h?.close())

async function open() {
  t0 = Date.now()
  clock = t0
  h = await startTandem(await backend.overrides(), { api: false, now: () => clock })
}

const AI = { source: 'ai', model: 'm1' }
type Json = Record<string, any>

const token = async (doc: string, sub: string, attr?: Record<string, string>, acc: 'r' | 'rw' = 'rw') =>
  (await mintToken(h.server.deps.keys, { org: 'acme', doc, sub, acc, ttlSec: 600, ...(attr ? { attr } : {}) })).token

async function call(method: string, name: string, doc: string, tok: string, query = '', body?: unknown) {
  const res = await fetch(`${h.httpUrl}/${name}/v1/acme/${doc}?yauth=${tok}${query ? '&' + query : ''}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

/** Ann at her keyboard and her agent (same user, `AI` attributions), each a live provider. */
async function annAndAgent(doc: string) {
  const ann = new Y.Doc()
  const agent = new Y.Doc()
  const ps = [
    h.provider('acme', doc, await token(doc, 'ann'), ann),
    h.provider('acme', doc, await token(doc, 'ann', AI), agent),
  ]
  await Promise.all(ps.map(synced))
  const edit = async (ms: number, who: Y.Doc, change: (t: Y.Text) => void) => {
    clock = t0 + ms
    change(who.getText('t'))
    const expected = who.getText('t').toString()
    await eventually(() => {
      expect(ann.getText('t').toString()).toBe(expected)
      expect(agent.getText('t').toString()).toBe(expected)
    })
  }
  return { ann, agent, edit }
}

describe.each(BACKENDS)('custom attributions on $name', (b) => {
  beforeAll(() => {
    backend = b
  })

  it("an agent's edits carry its attributions in the log, activity and changeset, and never group with its user's own", async () => {
    await open()
    const s = await annAndAgent('story')
    await s.edit(0, s.ann, (t) => t.insert(0, 'Hello'))
    await s.edit(100, s.agent, (t) => t.insert(5, ' world')) // within the group gap of Ann's edit
    await s.edit(200, s.ann, (t) => t.insert(11, '!'))
    const log: Json[] = []
    for await (const e of h.server.store.readLog(docIdOf('acme', 'story'))) log.push({ user: e.user, attrs: e.attrs })
    expect(log).toEqual([
      { user: 'ann', attrs: undefined },
      { user: 'ann', attrs: AI },
      { user: 'ann', attrs: undefined },
    ])

    const r = await token('story', 'carl', undefined, 'r')
    const act = await call('GET', 'activity', 'story', r, 'order=asc')
    expect(act.body.entries).toEqual([
      { from: t0, to: t0 + 200, by: 'ann', inserted: 6, deleted: 0 },
      { from: t0 + 100, to: t0 + 100, by: 'ann', attributes: AI, inserted: 6, deleted: 0 },
    ])
    const onlyAi = await call('GET', 'activity', 'story', r, 'attr=source:ai&attr=model:m1&by=ann')
    expect(onlyAi.body.entries).toEqual([
      { from: t0 + 100, to: t0 + 100, by: 'ann', attributes: AI, inserted: 6, deleted: 0 },
    ])
    expect((await call('GET', 'activity', 'story', r, 'attr=source:ai&attr=model:m2')).body.entries).toEqual([])
    expect((await call('GET', 'activity', 'story', r, 'attr=Source')).status).toBe(400)

    const cs = await call('GET', 'changeset', 'story', r)
    expect(cs.body.roots.t.delta).toEqual([
      { insert: 'Hello', attribution: { insert: ['ann'], insertAt: t0 } },
      { insert: ' world', attribution: { insert: ['ann'], insertAt: t0 + 100, attributes: { insert: AI } } },
      { insert: '!', attribution: { insert: ['ann'], insertAt: t0 + 200 } },
    ])
    const csAi = await call('GET', 'changeset', 'story', r, 'attr=source:ai')
    expect(csAi.body.roots.t.delta).toEqual([
      { insert: 'Hello' },
      { insert: ' world', attribution: { insert: ['ann'], insertAt: t0 + 100, attributes: { insert: AI } } },
      { insert: '!' },
    ])

    await h.restart() // stored, not only in memory
    const again = await call('GET', 'activity', 'story', await token('story', 'carl', undefined, 'r'), 'order=asc')
    expect(again.body.entries).toEqual(act.body.entries)
  })

  it("rollback {from, to, attr} undoes exactly what the agent did; the person's later edit stays", async () => {
    await open()
    const s = await annAndAgent('undo')
    await s.edit(0, s.ann, (t) => t.insert(0, 'The plan is simple.'))
    await s.edit(1000, s.agent, (t) => t.insert(19, ' It has three steps.'))
    await s.edit(1100, s.agent, (t) => t.delete(9, 3)) // "is " -> "The plan simple."
    await s.edit(2000, s.ann, (t) => t.insert(0, '# '))
    const rb = await call('POST', 'rollback', 'undo', await token('undo', 'ann'), '', {
      from: t0 + 500,
      to: t0 + 5000,
      attr: { source: 'ai' },
    })
    expect(rb.status).toBe(200)
    expect(rb.body).toMatchObject({ applied: true, removed: 20, restored: 3 })
    await eventually(() => expect(s.ann.getText('t').toString()).toBe('# The plan is simple.'))
    const bad = await call('POST', 'rollback', 'undo', await token('undo', 'ann'), '', {
      from: t0,
      to: t0 + 5000,
      attr: { source: 5 },
    })
    expect(bad.status).toBe(400)
  })

  it("PATCH /ydoc attributions merge over the token's; maps over the limits are 422 and change nothing", async () => {
    await open()
    const tok = await token('patch', 'ann', AI)
    const update = (s: string) => {
      const d = new Y.Doc()
      d.getText('t').insert(0, s)
      return Buffer.from(Y.encodeStateAsUpdate(d)).toString('base64')
    }
    const ok = await call('PATCH', 'ydoc', 'patch', tok, '', {
      update: update('a'),
      attributions: { model: 'm2', run: '7' },
    })
    expect(ok.status).toBe(200)
    const refusals = [
      { k0: '1', k1: '1', k2: '1', k3: '1', k4: '1', k5: '1', k6: '1', k7: '1', k8: '1' },
      { 'Bad-Key': 'x' },
      { source: 'x'.repeat(129) },
      { source: 1 },
      ['source', 'ai'],
    ]
    for (const attributions of refusals) {
      const res = await call('PATCH', 'ydoc', 'patch', tok, '', { update: update('b'), attributions })
      expect(res.status).toBe(422)
      expect(res.body.code).toBe('validation')
    }
    // eight of the body's own plus the token's two keys: nine together
    const merged = await call('PATCH', 'ydoc', 'patch', tok, '', {
      update: update('c'),
      attributions: { k0: '1', k1: '1', k2: '1', k3: '1', k4: '1', k5: '1', k6: '1' },
    })
    expect(merged.status).toBe(422)
    const log: Json[] = []
    for await (const e of h.server.store.readLog(docIdOf('acme', 'patch'))) log.push({ user: e.user, attrs: e.attrs })
    expect(log).toEqual([{ user: 'ann', attrs: { model: 'm2', run: '7', source: 'ai' } }])
  })

  it('a token whose attr claim is not a valid map is refused (401)', async () => {
    await open()
    const { SignJWT } = await import('jose/jwt/sign')
    const keys = h.server.deps.keys
    const forged = await new SignJWT({ org: 'acme', doc: 'x', acc: 'rw', attr: { Source: 'ai' } })
      .setProtectedHeader({ alg: 'EdDSA', kid: keys.signingKid })
      .setSubject('ann')
      .setAudience('tandem-collab')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(keys.signingKey)
    expect((await call('GET', 'ydoc', 'x', forged)).status).toBe(401)
  })
})
