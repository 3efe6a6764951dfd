// A cluster node as the server will start it: two Redis connections, heartbeat, bus and leases;
// readiness follows Redis; close() (the end of a drain) hands leases and awareness over at once.
import { createClient } from '@redis/client'
import { pino } from 'pino'
import { Registry } from 'prom-client'
import { afterEach, describe, expect, it } from 'vitest'
import { ClusterNode } from '../../src/cluster/node.js'
import { freePort, redisPerFile } from '../helpers/redis.js'
import { metricValue, until } from './bus-node.js'

const log = pino({ level: 'silent' })
const redis = redisPerFile()
const nodes: ClusterNode[] = []

afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close()
})

async function start(
  nodeId: string,
  extra: Partial<Parameters<typeof ClusterNode.start>[0]> = {},
): Promise<ClusterNode> {
  const n = await ClusterNode.start({
    redisUrl: redis().url,
    log,
    nodeId,
    heartbeatTtlMs: 3_000,
    heartbeatEveryMs: 500,
    pollMs: 200,
    ...extra,
  })
  nodes.push(n)
  return n
}

async function clientNames(): Promise<string[]> {
  const c = createClient({ url: redis().url })
  await c.connect()
  try {
    return (await c.clientList()).map((x) => x.name).filter((n) => n.startsWith('tandem'))
  } finally {
    c.destroy()
  }
}

describe('ClusterNode', () => {
  it('holds two Redis connections, sees its peers, and on close hands its lease and awareness over at once', async () => {
    const lapsed: string[] = []
    const registry = new Registry()
    const a = await start('a', { registry })
    a.onNodeLapse((id) => lapsed.push(id))
    // b's heartbeat would outlive the test: only its deregistration on close can make a notice.
    const b = await start('b', { heartbeatTtlMs: 60_000 })
    expect((await clientNames()).sort()).toEqual(['tandem-a', 'tandem-b', 'tandem-sub-a', 'tandem-sub-b'])
    await until('a sees b', () => a.membership.isLive('b'))
    expect(await metricValue(registry, 'tandem_cluster_nodes_live')).toBe(2)
    const lease = await b.leases.tryAcquire('compact:o/d/main', 60_000)
    expect(lease).not.toBeNull()
    expect(await a.leases.tryAcquire('compact:o/d/main', 60_000)).toBeNull()

    await b.close()
    // Released, not left to expire after 60 s.
    expect(await a.leases.tryAcquire('compact:o/d/main', 60_000)).not.toBeNull()
    await until('a notices b left', () => lapsed.includes('b'), 5_000)
    expect(await clientNames()).toEqual(expect.not.arrayContaining(['tandem-b', 'tandem-sub-b']))
  })

  it('is not ready while Redis is down and ready again after it is back', async () => {
    const registry = new Registry()
    const a = await start('a', { registry })
    expect(a.ready).toBe(true)
    await redis().kill()
    await until('not ready', () => !a.ready)
    expect(await metricValue(registry, 'tandem_bus_connected')).toBe(0)
    await redis().start()
    await until('ready again', () => a.ready)
    expect(await metricValue(registry, 'tandem_bus_connected')).toBe(1)
    // Its heartbeat is back too.
    await until('a lists itself live', async () => {
      await a.membership.poll()
      return a.membership.isLive('a')
    })
  })

  it('closes (drains) even while Redis is down, holding a lease', async () => {
    const a = await ClusterNode.start({ redisUrl: redis().url, log, nodeId: 'a' }) // offline queue as in production
    expect(await a.leases.tryAcquire('job:x', 60_000)).not.toBeNull()
    await redis().kill()
    await until('not ready', () => !a.ready)
    const closed = a.close().then(() => true)
    // Best-effort deregistration and release give up after a second each; the lease just expires.
    expect(await Promise.race([closed, new Promise((r) => setTimeout(() => r(false), 10_000))])).toBe(true)
  })

  it('refuses to start against an unreachable Redis, naming the setting and not the URL', async () => {
    const port = await freePort()
    const err = await ClusterNode.start({
      redisUrl: `redis://user:pa55word@127.0.0.1:${port}/0`,
      log,
      connectTimeoutMs: 300,
    }).then(
      () => new Error('started?'),
      (e: unknown) => e as Error,
    )
    expect(err.message).toMatch(/^redis-url: cannot reach Redis/)
    expect(err.message).not.toContain('pa55word')
  })
})
