// In-process cluster nodes for tests: one throwaway PostgreSQL and one redis-server, and N Tandem
// servers over them (each its own data dir and listeners), started one after the other so the
// first runs the migrations, with heartbeats fast enough for a test to see a node come and go.
import * as Y from 'yjs'
import type { Config } from '../../src/infra/config.js'
import type { ServerOptions } from '../../src/compose/server.js'
import { startPostgres, type PgServer } from './postgres.js'
import { startRedis, type RedisServer } from './redis.js'
import { startTandem, type Harness } from './tandem.js'

export interface ClusterNodes {
  pg: PgServer
  redis: RedisServer
  nodes: Harness[]
  /** the nodes, then Redis and PostgreSQL */
  close(): Promise<void>
}

const FAST_HEARTBEATS = { heartbeatTtlMs: 3_000, heartbeatEveryMs: 500, pollMs: 500 }

export async function startClusterNodes(
  count: number,
  schema: string,
  o: { settings?: Partial<Config>; options?: Omit<ServerOptions, 'cluster'> } = {},
): Promise<ClusterNodes> {
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()])
  const nodes: Harness[] = []
  const close = async () => {
    for (const n of nodes.splice(0)) await n.close()
    await redis.close()
    await pg.close()
  }
  try {
    for (let i = 0; i < count; i++) {
      nodes.push(
        await startTandem(
          { postgresUrl: pg.url, postgresSchema: schema, redisUrl: redis.url, ...o.settings },
          { ...o.options, cluster: FAST_HEARTBEATS },
        ),
      )
    }
  } catch (err) {
    await close()
    throw err
  }
  return { pg, redis, nodes, close }
}

/** The document as the node's store holds it (snapshot and log), read into a Y.Doc. */
export async function storedDoc(node: Harness, docId: string): Promise<Y.Doc> {
  const state = await node.server.store.load(docId)
  const doc = new Y.Doc()
  for (const u of [...(state.snapshot ? [state.snapshot.state] : []), ...state.updates.map((x) => x.update)])
    Y.applyUpdate(doc, u)
  return doc
}
