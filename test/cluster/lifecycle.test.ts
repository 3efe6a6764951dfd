// Issue 17 in cluster mode, three real nodes over one PostgreSQL and one redis-server: presence
// sent over REST on one node reaches a provider on another (and a node's GET sees remote clients),
// a named version saved on node A reads the same on node C and renames race safely across nodes,
// and an agent's attributions written through one node's store-assigned seqs show on another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as awarenessProtocol from 'y-protocols/awareness'
import type { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { startClusterNodes, type ClusterNodes } from '../helpers/cluster-nodes.js'
import { eventually, type Harness } from '../helpers/tandem.js'

let cluster: ClusterNodes
let nodes: Harness[] = []

beforeAll(async () => {
  cluster = await startClusterNodes(3, 'tandem_lifecycle', { options: { api: false } })
  nodes = cluster.nodes
}, 60_000)

afterAll(() => cluster?.close())

type Json = Record<string, any>
const synced = (p: WebsocketProvider) => eventually(() => expect(p.synced).toBe(true))

async function call(n: Harness, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${n.httpUrl}/${path}${path.includes('?') ? '&' : '?'}yauth=${token}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

const textOf = (b64: string) => {
  const d = new Y.Doc()
  Y.applyUpdate(d, Buffer.from(b64, 'base64'))
  return d.getText('t').toString()
}

describe('document lifecycle across cluster nodes', () => {
  it("presence PATCHed over REST on node A reaches a provider on node C; a GET on A sees C's client", async () => {
    const [a, , c] = nodes as [Harness, Harness, Harness]
    const pc = c.provider('acme', 'presence', await c.token('acme', 'presence', { sub: 'cid' }))
    pc.awareness.setLocalState({ user: { name: 'cid on C' } })
    await synced(pc)
    const bot = new awarenessProtocol.Awareness(new Y.Doc())
    bot.setLocalState({ user: { name: 'REST viewer' } })
    const update = Buffer.from(awarenessProtocol.encodeAwarenessUpdate(bot, [bot.clientID])).toString('base64')
    const r = await a.token('acme', 'presence', { acc: 'r', sub: 'viewer' })
    expect((await call(a, 'PATCH', 'ydoc/v1/acme/presence', r, { awareness: update })).status).toBe(200)
    await eventually(() =>
      expect(pc.awareness.getStates().get(bot.clientID)).toEqual({ user: { name: 'REST viewer' } }),
    )
    await eventually(async () => {
      const got = await call(a, 'GET', 'ydoc/v1/acme/presence?awareness=true', r)
      const seen = new awarenessProtocol.Awareness(new Y.Doc())
      awarenessProtocol.applyAwarenessUpdate(seen, Buffer.from(got.body.awareness, 'base64'), 'test')
      expect(seen.getStates().get(pc.awareness.clientID)).toEqual({ user: { name: 'cid on C' } })
      seen.destroy()
    })
    bot.destroy()
  }, 30_000)

  it('a version saved on node A (edits arriving on node B) reads the same on node C; renames racing on A and C: one wins', async () => {
    const [a, b, c] = nodes as [Harness, Harness, Harness]
    const ydoc = new Y.Doc()
    const pb = b.provider('acme', 'versions', await b.token('acme', 'versions'), ydoc)
    await synced(pb)
    ydoc.getText('t').insert(0, 'written on B')
    const rw = await a.token('acme', 'versions')
    await eventually(
      async () => expect(textOf((await call(a, 'GET', 'ydoc/v1/acme/versions', rw)).body.doc)).toBe('written on B'),
      20_000,
    )
    const v = await call(a, 'POST', 'versions/v1/acme/versions', rw, { name: 'from A' })
    expect(v.status).toBe(201)
    ydoc.getText('t').insert(0, 'later ')
    const onC = await call(
      c,
      'GET',
      `versions/v1/acme/versions/${v.body.id}`,
      await c.token('acme', 'versions', { acc: 'r' }),
    )
    expect(onC.body.version).toEqual(v.body)
    expect(textOf(onC.body.doc)).toBe('written on B')
    const race = await Promise.all(
      [a, c].map(async (n, i) =>
        call(n, 'PATCH', `versions/v1/acme/versions/${v.body.id}`, await n.token('acme', 'versions'), {
          name: `node ${i}`,
          updated_at_ms: v.body.updated_at_ms,
        }),
      ),
    )
    expect(race.map((x) => x.status).sort()).toEqual([200, 409])
    const winner = race.find((x) => x.status === 200)!.body
    expect(race.find((x) => x.status === 409)!.body.version).toEqual(winner)
    const rb = await call(c, 'POST', 'rollback/v1/acme/versions', await c.token('acme', 'versions'), {
      version: v.body.id,
    })
    expect(rb.status).toBe(200)
    await eventually(() => expect(ydoc.getText('t').toString()).toBe('written on B'), 20_000)
  }, 60_000)

  it("an agent's attributions written on node B (store-assigned seqs) show in activity on node C", async () => {
    const [, b, c] = nodes as [Harness, Harness, Harness]
    const agent = (
      await mintToken(b.server.deps.keys, {
        org: 'acme',
        doc: 'agent',
        sub: 'ann',
        acc: 'rw',
        ttlSec: 600,
        attr: { source: 'ai' },
      })
    ).token
    const d = new Y.Doc()
    d.getText('t').insert(0, 'drafted by the agent')
    const res = await call(b, 'PATCH', 'ydoc/v1/acme/agent', agent, {
      update: Buffer.from(Y.encodeStateAsUpdate(d)).toString('base64'),
      attributions: { model: 'm1' },
    })
    expect(res.status).toBe(200)
    const act = await call(
      c,
      'GET',
      'activity/v1/acme/agent?attr=source:ai',
      await c.token('acme', 'agent', { acc: 'r' }),
    )
    expect(act.body.entries).toMatchObject([{ by: 'ann', attributes: { model: 'm1', source: 'ai' }, inserted: 20 }])
  }, 30_000)
})
