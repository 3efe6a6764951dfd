// History routes on a real server: two users edit through stock y-websocket providers while the
// server's clock is simulated, then activity, changeset and rollback are read over HTTP.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { docIdOf } from '../../src/storage/doc-store.js'
import { BACKENDS, type Backend } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

const DAY = 24 * 60 * 60 * 1000
const LONG_TTL = 90 * 24 * 60 * 60 // tokens outlive the simulated month
let h: Harness
let t0: number
let clock: number
let backend: Backend

async function open(overrides = {}) {
  t0 = Date.now()
  clock = t0
  h = await startTandem({ ...(await backend.overrides()), ...overrides }, { api: false, now: () => clock })
}
afterEach(async () => h.close())
const storeOf = () => h.server.store

async function call(method: 'GET' | 'POST', name: string, doc: string, token: string, query = '', body?: unknown) {
  const res = await fetch(`${h.httpUrl}/${name}/v1/acme/${doc}?yauth=${token}${query ? '&' + query : ''}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

/** Ann and Bob, each with a live provider; `edit` stamps the change at t0 + ms and waits until both see it. */
async function twoEditors(doc: string) {
  const token = (sub: string, acc: 'r' | 'rw' = 'rw') => h.token('acme', doc, { sub, acc, ttlSec: LONG_TTL })
  const ann = new Y.Doc()
  const bob = new Y.Doc()
  const providers = [h.provider('acme', doc, await token('ann'), ann), h.provider('acme', doc, await token('bob'), bob)]
  await Promise.all(providers.map(synced))
  const edit = async (ms: number, who: Y.Doc, change: (t: Y.Text) => void) => {
    clock = t0 + ms
    const expected = (() => {
      const probe = new Y.Doc()
      Y.applyUpdate(probe, Y.encodeStateAsUpdate(who))
      change(probe.getText('t'))
      return probe.getText('t').toString()
    })()
    change(who.getText('t'))
    await eventually(() => {
      expect(ann.getText('t').toString()).toBe(expected)
      expect(bob.getText('t').toString()).toBe(expected)
    })
  }
  return { ann, bob, token, edit }
}

/** The story: Ann writes, Bob rewrites the middle, Ann prefixes. */
async function story(doc: string) {
  const s = await twoEditors(doc)
  await s.edit(0, s.ann, (t) => t.insert(0, 'Hello world'))
  await s.edit(300, s.ann, (t) => t.insert(11, '!'))
  await s.edit(5000, s.bob, (t) => t.insert(5, ' brave'))
  await s.edit(5400, s.bob, (t) => t.delete(12, 5)) // "world"
  await s.edit(9000, s.ann, (t) => t.insert(0, '>> '))
  return s
}

// Every suite runs on LevelDB and again on PostgreSQL.
describe.each(BACKENDS)('history on $name', (b) => {
  beforeAll(() => {
    backend = b
  })

  describe('history over HTTP', () => {
    beforeEach(async () => open())

    it('activity groups each user’s close edits and lists them newest first, oldest first, filtered and limited', async () => {
      const s = await story('activity')
      const r = await s.token('carl', 'r')
      const desc = await call('GET', 'activity', 'activity', r)
      expect(desc.status).toBe(200)
      expect(desc.body).toEqual({
        entries: [
          { from: t0 + 9000, to: t0 + 9000, by: 'ann', inserted: 3, deleted: 0 },
          { from: t0 + 5000, to: t0 + 5400, by: 'bob', inserted: 6, deleted: 5 },
          { from: t0, to: t0 + 300, by: 'ann', inserted: 12, deleted: 0 },
        ],
        more: false,
        retainedFrom: 0,
        truncated: false,
      })
      const asc = await call('GET', 'activity', 'activity', r, 'order=asc&limit=2&groupMaxGap=200')
      expect(asc.body.entries.map((e: any) => [e.by, e.from - t0])).toEqual([
        ['ann', 0],
        ['ann', 300],
      ])
      expect(asc.body.more).toBe(true)
      const bob = await call('GET', 'activity', 'activity', r, `by=bob&delta=true&from=${t0 + 1}`)
      expect(bob.body.entries).toEqual([
        {
          from: t0 + 5000,
          to: t0 + 5400,
          by: 'bob',
          inserted: 6,
          deleted: 5,
          delta: [{ insert: ' brave' }, { delete: 'world' }],
        },
      ])
    })

    it('changeset marks exactly the window’s inserted and deleted runs with their users, and gives the document at `to`', async () => {
      const s = await story('changeset')
      const r = await s.token('carl', 'r')
      const cs = await call('GET', 'changeset', 'changeset', r, `from=${t0 + 4000}&to=${t0 + 6000}&ydoc=true`)
      expect(cs.status).toBe(200)
      expect(cs.body.roots).toEqual({
        t: {
          type: 'text',
          delta: [
            { insert: 'Hello' },
            { insert: ' brave', attribution: { insert: ['bob'], insertAt: t0 + 5000 } },
            { insert: ' ' },
            { insert: 'world', attribution: { delete: ['bob'], deleteAt: t0 + 5400 } },
            { insert: '!' },
          ],
        },
      })
      expect(cs.body).toMatchObject({ inserted: 6, deleted: 5, by: ['bob'], truncated: false })
      const at = new Y.Doc()
      Y.applyUpdate(at, Buffer.from(cs.body.ydoc, 'base64'))
      expect(at.getText('t').toString()).toBe('Hello brave !')
      const annOnly = await call('GET', 'changeset', 'changeset', r, `by=ann&delta=false`)
      // Ann's 15 characters less "world": Bob's deletion is not Ann's, so it is not shown.
      expect(annOnly.body).toMatchObject({ inserted: 10, deleted: 0, by: ['ann'] })
      expect(annOnly.body.roots).toBeUndefined()
    })

    it('rollback to a time restores the earlier text on live providers, as a change by the caller', async () => {
      const s = await story('rollback-to')
      const rw = await s.token('carl')
      clock = t0 + 20_000
      const res = await call('POST', 'rollback', 'rollback-to', rw, '', { to: t0 + 1000 })
      expect(res).toEqual({ status: 200, body: { applied: true, removed: 9, restored: 5, reformatted: 0 } })
      await eventually(() => {
        expect(s.ann.getText('t').toString()).toBe('Hello world!')
        expect(s.bob.getText('t').toString()).toBe('Hello world!')
      })
      const latest = await call('GET', 'activity', 'rollback-to', rw, 'limit=1')
      expect(latest.body.entries).toEqual([{ from: t0 + 20_000, to: t0 + 20_000, by: 'carl', inserted: 5, deleted: 9 }])
    })

    it('rollback of one user’s window keeps everyone else’s later edits', async () => {
      const s = await story('rollback-window')
      const rw = await s.token('carl')
      const res = await call('POST', 'rollback', 'rollback-window', rw, '', {
        from: t0 + 1000,
        to: t0 + 8000,
        by: ['bob'],
      })
      expect(res.body).toEqual({ applied: true, removed: 6, restored: 5, reformatted: 0 })
      await eventually(() => expect(s.ann.getText('t').toString()).toBe('>> Hello world!'))
    })

    it('read-only tokens read activity and changeset but cannot roll back', async () => {
      const s = await story('read-only')
      const r = await s.token('carl', 'r')
      expect((await call('GET', 'activity', 'read-only', r)).status).toBe(200)
      expect((await call('GET', 'changeset', 'read-only', r)).status).toBe(200)
      const denied = await call('POST', 'rollback', 'read-only', r, '', { to: t0 })
      expect(denied).toEqual({ status: 403, body: { error: 'this token is read-only', code: 'read_only' } })
      expect(s.ann.getText('t').toString()).toBe('>> Hello brave !')
    })

    it('bad query values and bodies are 400s that name the problem', async () => {
      const token = await h.token('acme', 'bad', { ttlSec: LONG_TTL })
      const cases: [string, string][] = [
        ['activity', 'from=1.5'],
        ['activity', 'to=yesterday'],
        ['activity', 'from=9&to=3'],
        ['activity', 'order=newest'],
        ['activity', 'limit=0'],
        ['activity', 'group=perhaps'],
        ['activity', 'groupMaxGap=-1'],
        ['changeset', 'ydoc=yes-please'],
        ['changeset', 'by='],
      ]
      for (const [name, query] of cases) {
        const res = await call('GET', name, 'bad', token, query)
        expect(res.status, `${name}?${query}`).toBe(400)
        expect(res.body.code).toBe('bad_request')
      }
      expect((await call('POST', 'rollback', 'bad', token, '', { from: 5 })).body).toEqual({
        error: 'to must be a non-negative integer (ms)',
        code: 'bad_request',
      })
    })
  })

  describe('history durability', () => {
    it('activity and changeset are identical after compaction and a restart', async () => {
      await open({ compactThreshold: 3, historyCheckpointEvery: 2 })
      const s = await story('durable')
      const r = await s.token('carl', 'r')
      const read = async () => [
        await call('GET', 'activity', 'durable', r, 'delta=true'),
        await call('GET', 'changeset', 'durable', r, `from=${t0 + 4000}&to=${t0 + 6000}&ydoc=true`),
        await call('GET', 'changeset', 'durable', r, `from=${t0 + 8000}`),
      ]
      const before = await read()
      expect(before[0]!.body.entries).toHaveLength(3)
      expect((await storeOf().load(docIdOf('acme', 'durable'))).snapshot).not.toBeNull() // the room compacted
      await h.restart()
      expect(await read()).toEqual(before)
    })

    it('history older than the retention window is folded, the log pruned, and responses say so', async () => {
      await open({ compactThreshold: 2, historyRetentionDays: 30 })
      const s = await twoEditors('retention')
      await s.edit(0, s.ann, (t) => t.insert(0, 'first draft'))
      await s.edit(1000, s.bob, (t) => t.delete(0, 6)) // "first "
      await s.edit(2000, s.ann, (t) => t.insert(5, ' kept'))
      await s.edit(31 * DAY, s.bob, (t) => t.delete(0, 5)) // "draft"
      await s.edit(31 * DAY + 10, s.bob, (t) => t.insert(0, 'final')) // the room compacts here
      const r = await s.token('carl', 'r')
      const act = await call('GET', 'activity', 'retention', r)
      expect(act.body).toMatchObject({ retainedFrom: t0 + 2000, truncated: true })
      expect(act.body.entries).toEqual([
        { from: t0 + 31 * DAY, to: t0 + 31 * DAY + 10, by: 'bob', inserted: 5, deleted: 5 },
      ])
      const cs = await call('GET', 'changeset', 'retention', r, `from=${t0 + 30 * DAY}`)
      expect(cs.body).toMatchObject({ truncated: false, retainedFrom: t0 + 2000 })
      expect(cs.body.roots.t.delta).toEqual([
        { insert: 'draft', attribution: { delete: ['bob'], deleteAt: t0 + 31 * DAY } },
        { insert: 'final', attribution: { insert: ['bob'], insertAt: t0 + 31 * DAY + 10 } },
        { insert: ' kept' },
      ])
      const tooOld = await call('GET', 'changeset', 'retention', r, `to=${t0 + 1000}`)
      expect(tooOld.status).toBe(400)
      const seqs: number[] = []
      for await (const e of storeOf().readLog(docIdOf('acme', 'retention'))) seqs.push(e.seq)
      expect(seqs[0]).toBeGreaterThan(3) // the three old edits are gone from the log
    })
  })

  describe('history of XML documents', () => {
    beforeEach(async () => open())

    it('changeset walks paragraphs and rollback brings a deleted paragraph back on live providers', async () => {
      const doc = 'xml'
      const ann = new Y.Doc()
      const bob = new Y.Doc()
      const ps = [
        h.provider('acme', doc, await h.token('acme', doc, { sub: 'ann', ttlSec: LONG_TTL }), ann),
        h.provider('acme', doc, await h.token('acme', doc, { sub: 'bob', ttlSec: LONG_TTL }), bob),
      ]
      await Promise.all(ps.map(synced))
      const paragraph = (text: string) => {
        const p = new Y.XmlElement('paragraph')
        p.insert(0, [new Y.XmlText(text)])
        return p
      }
      const seen = (xml: string) =>
        eventually(() => {
          expect(ann.getXmlFragment('pm').toString()).toBe(xml)
          expect(bob.getXmlFragment('pm').toString()).toBe(xml)
        })
      ann.getXmlFragment('pm').insert(0, [paragraph('one'), paragraph('two')])
      await seen('<paragraph>one</paragraph><paragraph>two</paragraph>')
      clock = t0 + 5000
      bob.getXmlFragment('pm').delete(0, 1)
      await seen('<paragraph>two</paragraph>')
      clock = t0 + 6000
      ;((bob.getXmlFragment('pm').get(0) as Y.XmlElement).get(0) as Y.XmlText).insert(3, '!')
      await seen('<paragraph>two!</paragraph>')

      const rw = await h.token('acme', doc, { sub: 'carl', ttlSec: LONG_TTL })
      const cs = await call('GET', 'changeset', doc, rw, `from=${t0 + 1000}`)
      const del = { delete: ['bob'], deleteAt: t0 + 5000 }
      expect(cs.body.roots.pm).toEqual({
        type: 'xml',
        delta: [
          { element: 'paragraph', attribution: del, children: [{ insert: 'one', attribution: del }] },
          {
            element: 'paragraph',
            children: [{ insert: 'two' }, { insert: '!', attribution: { insert: ['bob'], insertAt: t0 + 6000 } }],
          },
        ],
      })
      const res = await call('POST', 'rollback', doc, rw, '', { to: t0 + 1000 })
      expect(res.body).toEqual({ applied: true, removed: 1, restored: 1, reformatted: 0 })
      await seen('<paragraph>one</paragraph><paragraph>two</paragraph>')
    })
  })

  describe('concurrent rollbacks', () => {
    beforeEach(async () => open())

    it('two rollbacks to the same time at once restore the text once', async () => {
      const s = await story('rollback-twice')
      const rw = await s.token('carl')
      const [a, b] = await Promise.all([
        call('POST', 'rollback', 'rollback-twice', rw, '', { to: t0 + 1000 }),
        call('POST', 'rollback', 'rollback-twice', rw, '', { to: t0 + 1000 }),
      ])
      expect([a.body.applied, b.body.applied].sort()).toEqual([false, true])
      await eventually(() => expect(s.bob.getText('t').toString()).toBe('Hello world!'))
    })

    it('undoing a user’s window twice restores their deletions once', async () => {
      const s = await story('undo-twice')
      const rw = await s.token('carl')
      const undo = { from: t0 + 1000, to: t0 + 8000, by: ['bob'] }
      const [a, b] = await Promise.all([
        call('POST', 'rollback', 'undo-twice', rw, '', undo),
        call('POST', 'rollback', 'undo-twice', rw, '', undo),
      ])
      expect([a.body.applied, b.body.applied].sort()).toEqual([false, true])
      await eventually(() => expect(s.ann.getText('t').toString()).toBe('>> Hello world!'))
    })
  })
})
