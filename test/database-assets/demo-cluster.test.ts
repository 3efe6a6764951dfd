// `--demo` on cluster nodes (and on any PostgreSQL-backed process): nodes seeding at the same moment
// make one world and one Shop database on the shared PostgreSQL; the demo key works on every node and
// the Shop database answers from each, filled exactly once.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedDemo } from '../../src/demo/world.js'
import { DEMO_DATABASE_ID, seedDemoDatabase } from '../../src/demo/database.js'
import { call } from '../api/helpers.js'
import { startClusterNodes, type ClusterNodes } from '../helpers/cluster-nodes.js'
import { eventually, type Harness } from '../helpers/tandem.js'
import { spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'

let cluster: ClusterNodes
let nodes: Harness[] = []

beforeAll(async () => {
  cluster = await startClusterNodes(3, 'tandem_demo')
  nodes = cluster.nodes
}, 60_000)

afterAll(() => cluster?.close())

describe('--demo on cluster nodes', () => {
  it('three nodes seeding at once make one world: the demo key works on every node and the Shop database answers from each', async () => {
    const worlds = await Promise.all(
      nodes.map(async (n) => seedDemoDatabase(n.server.deps, await seedDemo(n.server.deps))),
    )
    const key = worlds[0]!.apiKey
    for (const w of worlds) {
      expect(w.apiKey).toBe(key)
      expect(w.assets.filter((a) => a.id === DEMO_DATABASE_ID)).toEqual([
        { type: 'database', id: DEMO_DATABASE_ID, title: 'Shop database' },
      ])
    }
    for (const n of nodes) {
      const tables = await call(n, 'GET', `/api/v0/databases/${DEMO_DATABASE_ID}/data`, { key })
      expect(tables.body).toEqual({
        tables: [
          { name: 'customers', row_count: 150, schema: 'public' },
          { name: 'orders', row_count: 450, schema: 'public' },
        ],
      })
      // seeded once: no node added its rows a second time
      const ids = await call(
        n,
        'GET',
        `/api/v0/databases/${DEMO_DATABASE_ID}/data/orders?select=id&order=id&limit=1000`,
        { key },
      )
      expect(ids.body.data).toHaveLength(450)
      expect(
        (await call(n, 'GET', `/api/v0/databases/${DEMO_DATABASE_ID}/data/customers?id=eq.14&select=id`, { key })).body,
      ).toEqual({ data: [{ id: 14 }] })
    }
    // a row written through one node is read through the others
    const added = await call(nodes[0]!, 'POST', `/api/v0/databases/${DEMO_DATABASE_ID}/data/orders`, {
      key,
      body: { data: { customer_id: 7, product: 'Cable', quantity: 1, unit_price: 2.5 }, return_representation: true },
    })
    expect(added.status).toBe(200)
    for (const n of nodes.slice(1)) {
      const r = await call(
        n,
        'GET',
        `/api/v0/databases/${DEMO_DATABASE_ID}/data/orders?id=eq.${added.body.data[0].id}&select=product`,
        { key },
      )
      expect(r.body).toEqual({ data: [{ product: 'Cable' }] })
    }
    // a later start finds the world: same key, nothing seeded again
    const again = await seedDemoDatabase(nodes[2]!.server.deps, await seedDemo(nodes[2]!.server.deps))
    expect(again.apiKey).toBe(key)
    expect(
      (await call(nodes[1]!, 'GET', `/api/v0/databases/${DEMO_DATABASE_ID}/data/orders?select=id&limit=1000`, { key }))
        .body.data,
    ).toHaveLength(451)
  }, 60_000)

  it('`tandem serve --demo` as two cluster processes started together: both print the same key, the Shop database answers from each, no secret printed', async () => {
    const dirs = await Promise.all([0, 1].map(() => mkdtemp(join(tmpdir(), 'tandem-demo-node-'))))
    const env = {
      TANDEM_POSTGRES_URL: cluster.pg.url,
      TANDEM_REDIS_URL: cluster.redis.url,
      TANDEM_POSTGRES_SCHEMA: 'tandem_demo_procs',
    }
    const procs: TandemProcess[] = []
    try {
      // the first runs the migrations; the second starts while the first seeds
      procs.push(await spawnTandem(['--demo', '--data-dir', dirs[0]!], env))
      procs.push(await spawnTandem(['--demo', '--data-dir', dirs[1]!], env))
      const keys: string[] = []
      for (const p of procs) {
        await eventually(() => expect(p.output()).toMatch(/demo asset: database demo-shop Shop database/), 60_000)
        keys.push(/demo api key: (\S+)/.exec(p.output())![1]!)
      }
      expect(keys[1]).toBe(keys[0])
      for (const p of procs) {
        const res = await fetch(
          `http://127.0.0.1:${p.apiPort}/api/v0/databases/${DEMO_DATABASE_ID}/data/orders?select=id&limit=1000`,
          { headers: { 'x-api-key': keys[0]! } },
        )
        expect(res.status).toBe(200)
        expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(450)
        expect(p.output()).not.toMatch(/postgres:\/\/|redis:\/\/|password/i)
      }
    } finally {
      for (const p of procs) await p.stop()
      for (const d of dirs) await rm(d, { recursive: true, force: true })
    }
  }, 180_000)
})
