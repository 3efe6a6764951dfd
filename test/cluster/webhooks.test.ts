// Webhooks in a cluster of three real `tandem serve` processes on one PostgreSQL and Redis: events
// recorded on every node are each delivered once, by one node; a node killed while its deliveries
// are in flight leaves them to the others (leases in the outbox come due).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { createApiKey } from '../../src/control/api-keys.js'
import { PgControlStore } from '../../src/control/postgres.js'
import { createUser } from '../../src/control/users.js'
import { createWorkspace } from '../../src/control/workspaces.js'
import { createPgPool } from '../../src/pg/pool.js'
import { eventually } from '../helpers/tandem.js'
import { startReceiver, type Receiver } from '../webhooks/receiver.js'
import { startProcessCluster, type ProcessCluster } from './process-cluster.js'

const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64')

describe('webhooks in a cluster', () => {
  let c: ProcessCluster
  let receiver: Receiver
  let apiKey: string
  beforeAll(async () => {
    c = await startProcessCluster(3, {
      TANDEM_WEBHOOK_ALLOW_PRIVATE: 'true',
      TANDEM_WEBHOOK_DEBOUNCE_MS: '300',
      TANDEM_WEBHOOK_TIMEOUT_MS: '1500',
      TANDEM_WEBHOOK_REFRESH_SEC: '600',
    })
    receiver = await startReceiver()
    const pool = createPgPool({ url: c.pg.url, schema: 'tandem', poolSize: 2 })
    const store = new PgControlStore(pool, { schema: 'tandem', maxSerial: 2 })
    await createUser(store, 'ops@example.com', undefined, Date.now())
    apiKey = (await createApiKey(store, 'ops@example.com', 'test', Date.now())).key
    await createWorkspace(store, { name: 'acme', owner: 'ops@example.com', id: 'acme' }, Date.now())
    await createWorkspace(store, { name: 'fast', owner: 'ops@example.com', id: 'fast' }, Date.now())
    await pool.end()
  }, 120_000)
  afterAll(async () => {
    await receiver?.close()
    await c?.close()
  })

  const api = (i: number, path: string, init: RequestInit = {}) =>
    fetch(`http://127.0.0.1:${c.nodes[i]!.apiPort}/api/v0${path}`, {
      ...init,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    })

  async function edit(i: number, doc: string, org = 'acme'): Promise<void> {
    const { token } = await mintToken(c.keys, { org, doc, sub: `writer-${i}@x`, acc: 'rw', ttlSec: 600 })
    const y = new Y.Doc()
    y.getText('t').insert(0, doc)
    const res = await fetch(`${c.nodes[i]!.httpUrl}/ydoc/v1/${org}/${doc}?yauth=${token}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ update: b64(Y.encodeStateAsUpdate(y)) }),
    })
    expect(res.status).toBe(200)
  }

  it('a registration made on node A is used by nodes B and C for their next changes within a second', async () => {
    // The periodic re-read is 10 min here: only the announcement over Redis can tell B and C.
    const created = await api(0, '/workspaces/fast/webhooks', {
      method: 'POST',
      body: JSON.stringify({ url: receiver.url, events: ['document.updated'] }),
    })
    expect(created.status).toBe(201)
    await new Promise((r) => setTimeout(r, 1000))
    await edit(1, 'fast-doc-1', 'fast')
    await edit(2, 'fast-doc-2', 'fast')
    await eventually(
      () =>
        expect(
          new Set(receiver.accepted.filter((e) => e.json.data.workspace_id === 'fast').map((e) => e.json.data.doc_id)),
        ).toEqual(new Set(['fast-doc-1', 'fast-doc-2'])),
      10_000,
    )
  }, 60_000)

  it('delivers each event once although three nodes send, and a killed node leaves its deliveries to the others', async () => {
    const created = await api(1, '/workspaces/acme/webhooks', {
      method: 'POST',
      body: JSON.stringify({ url: receiver.url, events: ['document.updated'] }),
    })
    expect(created.status).toBe(201)
    // every node learns of the registration (announced over Redis)
    await eventually(async () => {
      for (const i of [0, 1, 2])
        expect(await fetch(`http://127.0.0.1:${c.nodes[i]!.apiPort}/metrics`).then((r) => r.text())).toMatch(
          /^tandem_webhook_registrations 2$/m,
        )
    }, 10_000)

    const docs = Array.from({ length: 30 }, (_, i) => `cluster-doc-${i}`)
    for (const [i, d] of docs.entries()) await edit(i % 3, d)
    await eventually(
      () =>
        expect(
          new Set(receiver.accepted.filter((e) => e.json.data.workspace_id === 'acme').map((e) => e.json.data.doc_id)),
        ).toEqual(new Set(docs)),
      60_000,
    )
    const ids = receiver.all.filter((e) => e.json.data.workspace_id === 'acme').map((e) => e.headers['webhook-id'])
    expect(ids).toHaveLength(new Set(ids).size)
    expect(ids).toHaveLength(30)

    // a receiver that never answers in time: node 0 holds some attempts when it is killed
    receiver.status = 500
    const more = Array.from({ length: 9 }, (_, i) => `after-kill-${i}`)
    for (const [i, d] of more.entries()) await edit(i % 3, d)
    await eventually(() => expect(receiver.all.length).toBeGreaterThan(32), 30_000) // 2 of them the 'fast' test's
    await c.stop(0, 'SIGKILL')
    receiver.status = 204
    await eventually(
      () =>
        expect(
          [
            ...new Set(
              receiver.accepted
                .filter((e) => e.json.data.workspace_id === 'acme')
                .map((e) => e.json.data.doc_id as string),
            ),
          ].sort(),
        ).toEqual([...docs, ...more].sort()),
      90_000,
    )
  }, 240_000)
})
