// The real @hocuspocus/provider against a real Tandem server on port 0: the root URL speaks
// Hocuspocus, many documents over one socket, each with its own capability token, in the same rooms
// as y-websocket providers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { authenticated, hocusClients, refused, type HocusClients } from '../helpers/hocuspocus.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

describe('Hocuspocus providers on the root URL', () => {
  let h: Harness
  let c: HocusClients
  beforeEach(async () => {
    h = await startTandem({}, { api: false })
    c = hocusClients()
  })
  afterEach(async () => {
    c.destroy()
    await h.close()
  })

  it('two providers on two sockets converge, and unsyncedChanges comes back to 0', async () => {
    const t = await h.token('acme', 'hp-converge')
    const a = new Y.Doc()
    const b = new Y.Doc()
    const pa = c.provider(c.socket(h.wsUrl), 'acme/hp-converge', t, a)
    const pb = c.provider(c.socket(h.wsUrl), 'acme/hp-converge', t, b)
    expect(await authenticated(pa)).toBe('read-write')
    await authenticated(pb)
    a.getText('t').insert(0, 'hello')
    b.getMap('m').set('k', 1)
    await eventually(() => {
      expect(b.getText('t').toString()).toBe('hello')
      expect(a.getMap('m').get('k')).toBe(1)
      expect(pa.unsyncedChanges).toBe(0)
      expect(pb.unsyncedChanges).toBe(0)
    })
  })

  it('20 documents over one socket, read back over another', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `hp-many-${i}`)
    const tokens = await Promise.all(names.map((n) => h.token('acme', n)))
    const writer = c.socket(h.wsUrl)
    const docs = names.map((n, i) => {
      const d = new Y.Doc()
      c.provider(writer, `acme/${n}`, tokens[i]!, d)
      return d
    })
    docs.forEach((d, i) => d.getText('t').insert(0, `doc ${i}`))
    const reader = c.socket(h.wsUrl)
    const copies = names.map((n, i) => {
      const d = new Y.Doc()
      c.provider(reader, `acme/${n}`, tokens[i]!, d)
      return d
    })
    await eventually(() => copies.forEach((d, i) => expect(d.getText('t').toString()).toBe(`doc ${i}`)))
    // two sockets in all, one per provider socket
    const metrics = await (await fetch(`${h.httpUrl}/metrics`)).text()
    expect(metrics).toMatch(/tandem_ws_connections\{protocol="hocuspocus"\} 2/)
  })

  it('a Hocuspocus provider and a y-websocket provider edit one document', async () => {
    const t = await h.token('acme', 'hp-mixed')
    const a = new Y.Doc()
    const b = new Y.Doc()
    const pa = c.provider(c.socket(h.wsUrl), 'acme/hp-mixed', t, a)
    const pb = h.provider('acme', 'hp-mixed', t, b)
    await Promise.all([authenticated(pa), synced(pb)])
    a.getText('t').insert(0, 'from hocuspocus ')
    b.getText('t').insert(0, 'from y-websocket ')
    await eventually(() => {
      expect(a.getText('t').toString()).toHaveLength('from hocuspocus from y-websocket '.length)
      expect(a.getText('t').toString()).toBe(b.getText('t').toString())
    })
  })

  it('a read-only token is authenticated readonly and its edits reach nobody', async () => {
    const rw = await h.token('acme', 'hp-ro')
    const ro = await h.token('acme', 'hp-ro', { acc: 'r', sub: 'rita@example.com' })
    const a = new Y.Doc()
    const b = new Y.Doc()
    const pa = c.provider(c.socket(h.wsUrl), 'acme/hp-ro', rw, a)
    const pb = c.provider(c.socket(h.wsUrl), 'acme/hp-ro', ro, b)
    expect(await authenticated(pb)).toBe('readonly')
    await authenticated(pa)
    a.getText('t').insert(0, 'written')
    await eventually(() => expect(b.getText('t').toString()).toBe('written'))
    b.getText('t').insert(0, 'ignored ')
    a.getText('t').insert(7, '!')
    await eventually(() => expect(b.getText('t').toString()).toContain('written!'))
    expect(a.getText('t').toString()).toBe('written!')
    expect(pb.unsyncedChanges).toBeGreaterThan(0) // never acknowledged as saved
  })

  it('a refused document gets PermissionDenied and the socket serves the others', async () => {
    const socket = c.socket(h.wsUrl)
    const good = await h.token('acme', 'hp-good')
    const other = await h.token('acme', 'hp-other')
    const { token: forged } = await mintToken(h.server.deps.keys, {
      org: 'acme',
      doc: 'hp-forged',
      sub: 'x',
      acc: 'rw',
      ttlSec: 60,
    })
    const expired = await h.token('acme', 'hp-expired', { ttlSec: -120 })
    const pForged = c.provider(socket, 'acme/hp-forged', forged.slice(0, -4) + 'AAAA')
    const pWrong = c.provider(socket, 'acme/hp-wrong', other)
    const pExpired = c.provider(socket, 'acme/hp-expired', expired)
    const pBadName = c.provider(socket, 'no-slash', good)
    const doc = new Y.Doc()
    const pGood = c.provider(socket, 'acme/hp-good', good, doc)
    const reasons = Promise.all([pForged, pWrong, pExpired, pBadName].map(refused))
    const admitted = authenticated(pGood)
    const [forgedWhy, wrongWhy, expiredWhy, badNameWhy] = await reasons
    expect(forgedWhy).toBe('token invalid')
    expect(wrongWhy).toMatch(/document/)
    expect(expiredWhy).toBe('token expired')
    expect(badNameWhy).toMatch(/bad document name/)
    await admitted
    doc.getText('t').insert(0, 'still served')
    const copy = new Y.Doc()
    await synced(h.provider('acme', 'hp-good', good, copy))
    await eventually(() => expect(copy.getText('t').toString()).toBe('still served'))
  })

  it('awareness per document', async () => {
    const t = await h.token('acme', 'hp-aw')
    const pa = c.provider(c.socket(h.wsUrl), 'acme/hp-aw', t)
    const pb = c.provider(c.socket(h.wsUrl), 'acme/hp-aw', t)
    await Promise.all([authenticated(pa), authenticated(pb)])
    pa.setAwarenessField('user', { name: 'Ann' })
    await eventually(() => {
      const states = [...pb.awareness!.getStates().values()]
      expect(states).toContainEqual({ user: { name: 'Ann' } })
    })
  })

  it("stateless messages reach the document's other Hocuspocus peers, not read-only senders'", async () => {
    const t = await h.token('acme', 'hp-stateless')
    const ro = await h.token('acme', 'hp-stateless', { acc: 'r' })
    const pa = c.provider(c.socket(h.wsUrl), 'acme/hp-stateless', t)
    const pb = c.provider(c.socket(h.wsUrl), 'acme/hp-stateless', t)
    const pr = c.provider(c.socket(h.wsUrl), 'acme/hp-stateless', ro)
    await Promise.all([authenticated(pa), authenticated(pb), authenticated(pr)])
    const got: string[] = []
    pb.on('stateless', ({ payload }: { payload: string }) => got.push(payload))
    const seenByA: string[] = []
    pa.on('stateless', ({ payload }: { payload: string }) => seenByA.push(payload))
    const denied = refused(pr)
    pr.sendStateless('from read-only')
    expect(await denied).toMatch(/read-only/)
    pa.sendStateless('{"cursor":3}')
    await eventually(() => expect(got).toEqual(['{"cursor":3}']))
    expect(seenByA).toEqual([])
  })

  it('sessionAwareness: two providers of one document on one socket each get their own presence, edits and stateless messages', async () => {
    const t = await h.token('acme', 'hp-sessions')
    const socket = c.socket(h.wsUrl)
    const [a, b, d, y] = [new Y.Doc(), new Y.Doc(), new Y.Doc(), new Y.Doc()]
    const pa = c.provider(socket, 'acme/hp-sessions', t, a, { sessionAwareness: true })
    const pb = c.provider(socket, 'acme/hp-sessions', t, b, { sessionAwareness: true })
    const pd = c.provider(c.socket(h.wsUrl), 'acme/hp-sessions', t, d) // a plain name on another socket
    const py = h.provider('acme', 'hp-sessions', t, y)
    await Promise.all([authenticated(pa), authenticated(pb), authenticated(pd), synced(py)])

    // edits: from one session to its twin on the same socket, and to everyone else
    a.getText('t').insert(0, 'a ')
    b.getMap('m').set('from', 'b')
    y.getText('t').insert(0, 'y ')
    await eventually(() => {
      for (const doc of [a, b, d, y]) {
        expect(doc.getText('t').toString()).toHaveLength(4)
        expect(doc.getMap('m').get('from')).toBe('b')
      }
      expect(pa.unsyncedChanges).toBe(0)
      expect(pb.unsyncedChanges).toBe(0)
    })
    // a write cycle with one author skips the author's socket: not its twin session
    a.getText('t').insert(0, 'solo ')
    await eventually(() => expect(b.getText('t').toString()).toMatch(/^solo /))

    // presence: each session is its own awareness client, seen by the other session and by y-websocket
    pa.setAwarenessField('user', 'Ann')
    pb.setAwarenessField('user', 'Bob')
    const users = (states: Map<number, Record<string, unknown>>) =>
      [...states.values()]
        .map((s) => s.user)
        .filter(Boolean)
        .sort()
    await eventually(() => {
      expect(users(py.awareness.getStates())).toEqual(['Ann', 'Bob'])
      expect(users(pa.awareness!.getStates())).toEqual(['Ann', 'Bob'])
      expect(users(pb.awareness!.getStates())).toEqual(['Ann', 'Bob'])
    })

    // stateless: to the twin session and the plain provider, never back to the sender
    const got = { a: [] as string[], b: [] as string[], d: [] as string[] }
    pa.on('stateless', ({ payload }: { payload: string }) => got.a.push(payload))
    pb.on('stateless', ({ payload }: { payload: string }) => got.b.push(payload))
    pd.on('stateless', ({ payload }: { payload: string }) => got.d.push(payload))
    pa.sendStateless('ping')
    await eventually(() => expect(got).toEqual({ a: [], b: ['ping'], d: ['ping'] }))

    // one session detaches: its presence goes, its twin on the same socket carries on
    pa.destroy()
    await eventually(() => expect(users(py.awareness.getStates())).toEqual(['Bob']))
    y.getText('t').insert(0, 'after ')
    await eventually(() => expect(b.getText('t').toString()).toMatch(/^after /))
    expect(a.getText('t').toString()).not.toMatch(/^after /)
  })
})
