// Deletion reaches every node of a cluster (real PostgreSQL and redis-server): a soft delete made
// through node A's API closes a provider's socket on node C with 4404 and C's upgrade answers 404
// from then on; restore opens it again on C; a hard delete through A drops C's loaded room without
// writing it and leaves nothing of the document in PostgreSQL, whatever C held.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { call, grant, makeWorld } from '../api/helpers.js'
import { docIdOf } from '../../src/storage/doc-store.js'
import { rawClient, upgradeStatus } from '../helpers/raw-client.js'
import { startClusterNodes, type ClusterNodes } from '../helpers/cluster-nodes.js'
import { eventually, synced, type Harness } from '../helpers/tandem.js'

let cluster: ClusterNodes
let a: Harness
let c: Harness

beforeAll(async () => {
  cluster = await startClusterNodes(2, 'tandem_delete', { settings: { revocationRefreshMs: 200 } })
  ;[a, c] = cluster.nodes as [Harness, Harness]
}, 60_000)

afterAll(() => cluster?.close())

describe('delete across cluster nodes', () => {
  it('a soft delete on node A closes sockets on node C with 4404 and C refuses the upgrade; restore reopens it on C', async () => {
    const w = await makeWorld(a, 'soft')
    await grant(a, w.doc.id, w.users.owner, 'edit')
    const minted = await call(a, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, {
      key: w.keys.owner,
      body: { access: 'edit' },
    })
    const url = `${c.wsUrl}/${w.workspaceId}/${w.doc.id}?yauth=${minted.body.token}`
    const ydoc = new Y.Doc()
    const provider = c.provider(w.workspaceId, w.doc.id, minted.body.token, ydoc)
    await synced(provider)
    ydoc.getText('t').insert(0, 'typed on C')
    const codes: number[] = []
    provider.on('connection-close', (e: { code: number } | null) => void (e && codes.push(e.code)))
    const raw = await rawClient(url)

    expect((await call(a, 'DELETE', `/api/v0/assets/${w.doc.id}`, { key: w.keys.owner })).status).toBe(200)
    expect((await raw.closed).code).toBe(4404)
    await eventually(() => expect(codes[0]).toBe(4404))
    provider.destroy()
    expect(await upgradeStatus(url)).toBe(404)
    const rest = await fetch(`${c.httpUrl}/ydoc/v1/${w.workspaceId}/${w.doc.id}?yauth=${minted.body.token}`)
    expect(rest.status).toBe(404)
    expect(await rest.json()).toEqual({ error: 'document deleted', code: 'doc_deleted' })

    expect((await call(a, 'POST', `/api/v0/assets/${w.doc.id}/restore`, { key: w.keys.owner })).status).toBe(200)
    await eventually(async () => expect(await upgradeStatus(url)).toBe(101))
    const back = new Y.Doc()
    await synced(c.provider(w.workspaceId, w.doc.id, minted.body.token, back))
    expect(back.getText('t').toString()).toBe('typed on C')
  }, 60_000)

  it('a hard delete on node A drops the room node C holds, unwritten, and erases the document in PostgreSQL', async () => {
    const w = await makeWorld(a, 'hard')
    await grant(a, w.doc.id, w.users.owner, 'edit')
    const minted = await call(a, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, {
      key: w.keys.owner,
      body: { access: 'edit' },
    })
    const docId = docIdOf(w.workspaceId, w.doc.id)
    const ydoc = new Y.Doc()
    const provider = c.provider(w.workspaceId, w.doc.id, minted.body.token, ydoc)
    await synced(provider)
    ydoc.getText('t').insert(0, 'held on C')
    await eventually(async () => expect(await a.server.store.exists(docId)).toBe(true))
    const raw = await rawClient(`${c.wsUrl}/${w.workspaceId}/${w.doc.id}?yauth=${minted.body.token}`)
    expect(c.server.registry.loaded(docId)).toBeDefined()

    expect((await call(a, 'DELETE', `/api/v0/assets/${w.doc.id}?hard=true`, { key: w.keys.owner })).status).toBe(200)
    expect((await raw.closed).code).toBe(4404)
    provider.destroy()
    await eventually(() => expect(c.server.registry.loaded(docId)).toBeUndefined())
    // C erased again after dropping its room: whatever it wrote before is gone too
    await eventually(async () => {
      expect(await c.server.store.exists(docId)).toBe(false)
      expect(await c.server.store.readMeta(docId, 'history')).toBeNull()
    })
    expect(await upgradeStatus(`${c.wsUrl}/${w.workspaceId}/${w.doc.id}?yauth=${minted.body.token}`)).toBe(404)
    expect((await call(c, 'POST', `/api/v0/assets/${w.doc.id}/restore`, { key: w.keys.owner })).status).toBe(404)
  }, 60_000)
})
