// Three real Tandem nodes (in-process servers, each its own data dir and listeners) over one
// PostgreSQL and one redis-server: stock y-websocket providers on different nodes converge,
// awareness crosses nodes and leaves with its client, a REST PATCH on one node reaches a provider
// on another, and a collab token minted by one node's API opens the document on another.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as Y from 'yjs'
import type { WebsocketProvider } from 'y-websocket'
import { call, grant, makeWorld } from '../api/helpers.js'
import { authenticated, hocusClients } from '../helpers/hocuspocus.js'
import { PGLITE_IN_CLUSTER } from '../../src/cluster/pglite-guard.js'
import { startClusterNodes, storedDoc, type ClusterNodes } from '../helpers/cluster-nodes.js'
import { eventually, type Harness } from '../helpers/tandem.js'

let cluster: ClusterNodes
let nodes: Harness[] = []

beforeAll(async () => {
  cluster = await startClusterNodes(3, 'tandem_cluster')
  nodes = cluster.nodes
}, 60_000)

afterAll(() => cluster?.close())

const synced = (p: WebsocketProvider) => eventually(() => expect(p.synced).toBe(true))

describe('three cluster nodes', () => {
  it('providers on different nodes converge on text and map edits', async () => {
    const [a, b, c] = nodes as [Harness, Harness, Harness]
    const docs = [new Y.Doc(), new Y.Doc(), new Y.Doc()]
    const ps = await Promise.all(
      [a, b, c].map(async (n, i) => n.provider('acme', 'converge', await n.token('acme', 'converge'), docs[i])),
    )
    for (const p of ps) await synced(p)
    docs[0]!.getText('t').insert(0, 'from A ')
    docs[1]!.getText('t').insert(0, 'from B ')
    docs[2]!.getMap('m').set('c', 3)
    docs[0]!.getMap('m').set('a', 1)
    for (let i = 0; i < 30; i++) docs[i % 3]!.getText('t').insert(0, String(i % 10))
    await eventually(() => {
      const want = docs[0]!.getText('t').toString()
      expect(want).toContain('from A')
      expect(want).toContain('from B')
      expect(want.length).toBe('from A from B '.length + 30)
      for (const d of docs) {
        expect(d.getText('t').toString()).toBe(want)
        expect(d.getMap('m').toJSON()).toEqual({ a: 1, c: 3 })
      }
    }, 20_000)
    // and what every node committed is one dense log in PostgreSQL
    const state = await c.server.store.load('acme/converge/main')
    const stored = await storedDoc(c, 'acme/converge/main')
    expect(stored.getText('t').toString()).toBe(docs[0]!.getText('t').toString())
    expect(state.updates.map((u) => u.seq)).toEqual(state.updates.map((_, i) => (state.snapshot?.seq ?? 0) + i + 1))
  }, 60_000)

  it('awareness crosses nodes and disappears everywhere when its client closes', async () => {
    const [a, , c] = nodes as [Harness, Harness, Harness]
    const pa = a.provider('acme', 'aware', await a.token('acme', 'aware'))
    const pc = c.provider('acme', 'aware', await c.token('acme', 'aware'))
    await Promise.all([synced(pa), synced(pc)])
    pa.awareness.setLocalStateField('user', { name: 'ann on A' })
    const annId = pa.awareness.clientID
    await eventually(() => expect(pc.awareness.getStates().get(annId)).toEqual({ user: { name: 'ann on A' } }))
    pc.awareness.setLocalStateField('user', { name: 'cid on C' })
    await eventually(() =>
      expect(pa.awareness.getStates().get(pc.awareness.clientID)).toEqual({ user: { name: 'cid on C' } }),
    )
    pa.destroy()
    await eventually(() => expect(pc.awareness.getStates().has(annId)).toBe(false))
  }, 30_000)

  it('a PATCH of the ydoc on node A reaches a provider on node C', async () => {
    const [a, , c] = nodes as [Harness, Harness, Harness]
    const pc = c.provider('acme', 'patched', await c.token('acme', 'patched'))
    await synced(pc)
    const d = new Y.Doc()
    d.getText('t').insert(0, 'patched on A')
    const res = await fetch(`${a.httpUrl}/ydoc/v1/acme/patched?yauth=${await a.token('acme', 'patched')}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/octet-stream' },
      body: Y.encodeStateAsUpdate(d),
    })
    expect(res.status).toBe(200)
    await eventually(() => expect(pc.doc.getText('t').toString()).toBe('patched on A'))
  }, 30_000)

  it("a collab token minted through node B's API opens the document on node C", async () => {
    const [a, b, c] = nodes as [Harness, Harness, Harness]
    const w = await makeWorld(b, 'cluster')
    await grant(b, w.doc.id, w.users.admin, 'edit')
    const r = await call(b, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, {
      key: w.keys.admin,
      body: { access: 'edit' },
    })
    expect(r.status).toBe(200)
    const pc = c.provider(r.body.org, r.body.doc_id, r.body.token)
    await synced(pc)
    pc.doc.getText('text').insert(0, 'typed on C')
    // ... and the document's content, read through node A's API, has it
    await eventually(async () => {
      const content = await call(a, 'GET', `/api/v0/tools/asset/content?asset_id=${w.doc.id}`, { key: w.keys.admin })
      expect(content.body.content).toBe('typed on C')
    })
  }, 30_000)

  it('a document no other node follows compacts without asking Redis for the lease; one another node follows takes it', async () => {
    const [a, b] = nodes as [Harness, Harness, Harness]
    const docId = 'acme/lone-compact/main'
    const leases = vi.spyOn(a.server.cluster!.leases, 'tryAcquire')
    const pa = a.provider('acme', 'lone-compact', await a.token('acme', 'lone-compact'))
    await synced(pa)
    pa.doc.getText('t').insert(0, 'alone')
    await eventually(() => expect(a.server.cluster!.bus.isAlone(docId)).toBe(true)) // its first publish found nobody
    pa.doc.getText('t').insert(0, 'still ')
    await eventually(async () => expect((await a.server.store.load(docId)).lastSeq).toBe(2))
    await a.server.registry.loaded(docId)!.compact()
    expect(leases).not.toHaveBeenCalled()
    expect((await a.server.store.load(docId)).snapshot?.seq).toBe(2)

    const pb = b.provider('acme', 'lone-compact', await b.token('acme', 'lone-compact'))
    await synced(pb)
    pa.doc.getText('t').insert(0, 'shared ')
    await eventually(() => expect(pb.doc.getText('t').toString()).toBe('shared still alone'))
    await a.server.registry.loaded(docId)!.compact()
    expect(leases).toHaveBeenCalledWith(`compact:${docId}`, expect.any(Number))
    expect((await a.server.store.load(docId)).snapshot?.seq).toBe(3)
    leases.mockRestore()
  }, 30_000)

  it('/readyz answers ready on every node while Redis and PostgreSQL are up', async () => {
    for (const n of nodes) {
      const res = await fetch(`${n.httpUrl}/readyz`)
      expect(await res.json()).toEqual({ status: 'ready' })
    }
  })

  it('concurrent tool-registry PATCHes sent to different nodes never lose one another', async () => {
    const w = await makeWorld(nodes[0]!, 'registry-race')
    const path = `/api/v0/workspaces/${w.workspaceId}/tool-registry`
    const tools = ['code_interpreter', 'database_query', 'email_send', 'image_generation', 'web_browse']
    const modes = ['no_approval', 'required_with_override', 'required_no_override'] as const
    const replies = await Promise.all(
      tools.flatMap((tool_id, i) => [
        call(nodes[i % 3]!, 'PATCH', path, { key: w.keys.owner, body: { tool: { tool_id, enabled: false } } }),
        call(nodes[(i + 1) % 3]!, 'PATCH', path, {
          key: w.keys.admin,
          body: { tool: { tool_id, approval_mode: modes[i % 3] } },
        }),
      ]),
    )
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200))
    for (const n of nodes) {
      const got = await call(n, 'GET', path, { key: w.keys.owner })
      expect(got.body.tools).toEqual(
        tools.map((tool_id, i) => ({ tool_id, enabled: false, approval_mode: modes[i % 3] })),
      )
    }
  }, 30_000)

  it("an approval-mode change made on one node narrows an agent's socket joined to another", async () => {
    const [a, b] = nodes as [Harness, Harness]
    const w = await makeWorld(a, 'registry-narrow')
    await grant(a, w.doc.id, w.users.owner, 'edit')
    const minted = await call(b, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, {
      key: w.keys.owner,
      body: { access: 'edit', attributions: { source: 'ai' } },
    })
    expect(minted.status).toBe(200)
    const t = minted.body as { token: string; org: string; doc_id: string }
    const clients = hocusClients()
    try {
      const agent = clients.provider(clients.socket(b.wsUrl), `${t.org}/${t.doc_id}`, t.token)
      expect(await authenticated(agent)).toBe('read-write')
      const path = `/api/v0/workspaces/${w.workspaceId}/tool-registry`
      expect(
        (
          await call(a, 'PATCH', path, {
            key: w.keys.owner,
            body: { tool: { tool_id: 'edit_document', approval_mode: 'required_no_override' } },
          })
        ).status,
      ).toBe(200)
      await eventually(() => expect(agent.authorizedScope).toBe('readonly'))
    } finally {
      clients.destroy()
    }
  })

  it('PGlite database assets are refused on a cluster node with a message that says what to use instead', () => {
    const [, b] = nodes as [Harness, Harness]
    expect(() => b.server.deps.databases.database({ id: 'local-only', provider: 'pglite' })).toThrow(PGLITE_IN_CLUSTER)
  })

  it('Redis killed and restarted under writers: /readyz says so meanwhile, nodes resync, nothing is lost, providers converge', async () => {
    const docs = [new Y.Doc(), new Y.Doc(), new Y.Doc()]
    const ps = await Promise.all(
      nodes.map(async (n, i) => n.provider('acme', 'redis-restart', await n.token('acme', 'redis-restart'), docs[i])),
    )
    for (const p of ps) await synced(p)
    let n = 0
    const writer = setInterval(() => {
      const k = n++ % 3
      docs[k]!.getArray<string>('items').push([`d${k}:${n}`])
    }, 20)
    try {
      await new Promise((r) => setTimeout(r, 500))
      await cluster.redis.kill()
      await eventually(async () => {
        const res = await fetch(`${nodes[0]!.httpUrl}/readyz`)
        expect(res.status).toBe(503)
        expect(await res.json()).toEqual({ status: 'cluster bus unavailable' })
      })
      await new Promise((r) => setTimeout(r, 1_000))
      await cluster.redis.start()
      await new Promise((r) => setTimeout(r, 1_000))
    } finally {
      clearInterval(writer)
    }
    const written = n
    await eventually(() => {
      for (const d of docs) expect(d.getArray('items').length).toBe(written)
      const want = docs[0]!.getArray('items').toJSON()
      for (const d of docs) expect(d.getArray('items').toJSON()).toEqual(want)
    }, 30_000)
    await eventually(async () => {
      const stored = await storedDoc(nodes[1]!, 'acme/redis-restart/main')
      expect(stored.getArray('items').length).toBe(written)
    })
    for (const node of nodes)
      await eventually(async () => expect((await fetch(`${node.httpUrl}/readyz`)).status).toBe(200))
  }, 60_000)

  it('a room loaded while Redis is down is served from PostgreSQL at once and resyncs when the bus is back', async () => {
    const [a, b] = nodes as [Harness, Harness]
    const docB = new Y.Doc()
    const pb = b.provider('acme', 'redis-down-load', await b.token('acme', 'redis-down-load'), docB)
    await synced(pb)
    docB.getText('t').insert(0, 'before ')
    await eventually(async () => {
      const state = await a.server.store.load('acme/redis-down-load/main')
      expect(state.updates.length + (state.snapshot ? 1 : 0)).toBeGreaterThan(0)
    })
    const tokenA = await a.token('acme', 'redis-down-load')
    await cluster.redis.kill()
    try {
      await eventually(async () => expect((await fetch(`${a.httpUrl}/readyz`)).status).toBe(503))
      // A has never loaded the document: it loads it from PostgreSQL without waiting for Redis.
      const docA = new Y.Doc()
      const pa = a.provider('acme', 'redis-down-load', tokenA, docA)
      await synced(pa)
      expect(docA.getText('t').toString()).toBe('before ')
      expect((await fetch(`${a.httpUrl}/readyz`)).status).toBe(503) // still down: it did not wait
      docB.getText('t').insert(7, 'during ') // committed on B, held unacknowledged until Redis is back
      await cluster.redis.start()
      await eventually(() => {
        expect(docA.getText('t').toString()).toBe('before during ')
        expect(docB.getText('t').toString()).toBe('before during ')
      }, 30_000)
      docA.getText('t').insert(14, 'after')
      await eventually(() => expect(docB.getText('t').toString()).toBe('before during after'), 30_000)
    } finally {
      if (!cluster.redis.running) await cluster.redis.start()
    }
  }, 60_000)
})
