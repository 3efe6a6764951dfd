// Node membership on a real redis-server: nodes see each other, a drained node is noticed at the
// next poll, and a node killed with SIGKILL (a child process) lapses after its TTL, taking its
// clients' awareness with it on every other node (bus relay + RemoteAwareness + onLapse).
import { pino } from 'pino'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as awarenessProtocol from 'y-protocols/awareness'
import * as Y from 'yjs'
import { DocBus } from '../../src/cluster/bus.js'
import { NodeMembership, newNodeId } from '../../src/cluster/nodes.js'
import { connectRedis, type RedisClient } from '../../src/cluster/redis.js'
import { RemoteAwareness } from '../../src/cluster/remote-awareness.js'
import { startRedis, type RedisServer } from '../helpers/redis.js'
import { until } from './bus-node.js'
import { type Child, startChild } from './child.js'

const log = pino({ level: 'silent' })
let redis: RedisServer
const cleanups: (() => Promise<unknown> | void)[] = []

beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis.close()
})
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function client(name: string): Promise<RedisClient> {
  const c = await connectRedis({ url: redis.url, name })
  cleanups.push(() => c.destroy())
  return c
}

describe('NodeMembership', () => {
  it('gives each process a distinct id', () => {
    expect(newNodeId()).not.toBe(newNodeId())
    expect(newNodeId()).toMatch(/^[A-Za-z0-9.-]+-\d+-[0-9a-f]{8}$/)
  })

  it('nodes see each other; a node that stops (drain) is reported lapsed at the next poll', async () => {
    const lapsed: string[] = []
    const a = await NodeMembership.start(await client('a'), {
      nodeId: 'a',
      log,
      ttlMs: 10_000,
      everyMs: 400,
      pollMs: 100,
      onLapse: (id) => lapsed.push(id),
    })
    // b's heartbeat would outlive the test: only its deregistration can make a notice it.
    const b = await NodeMembership.start(await client('b'), {
      nodeId: 'b',
      log,
      ttlMs: 60_000,
      everyMs: 400,
      pollMs: 100,
    })
    cleanups.push(
      () => a.stop(),
      () => b.stop(),
    )
    await until('a sees b', () => a.isLive('b'))
    expect(a.live()).toEqual(['a', 'b'])
    await until('b sees a', () => b.isLive('a'))
    await b.stop()
    await until('a reports b lapsed', () => lapsed.includes('b'), 5_000)
    expect(a.live()).toEqual(['a'])
    expect(lapsed).toEqual(['b'])
  })

  it('a node whose own heartbeat expired (others may have reaped it) says so at its next heartbeat', async () => {
    let revived = 0
    const redisClient = await client('c')
    const c = await NodeMembership.start(redisClient, {
      nodeId: 'c',
      log,
      ttlMs: 10_000,
      everyMs: 200,
      pollMs: 200,
      onRevived: () => revived++,
    })
    cleanups.push(() => c.stop())
    await new Promise((r) => setTimeout(r, 500))
    expect(revived).toBe(0)
    await redisClient.del('tandem:node:c') // what an expiry does
    await until('c revives', () => revived === 1, 3_000)
    await until('c is live again', () => c.isLive('c'), 3_000)
  })

  it("a node killed with SIGKILL lapses after its TTL and its clients' awareness disappears on the other nodes", async () => {
    const docId = 'nodes/aw/main'
    // The surviving node: a room's awareness, the bus, remote ownership, membership.
    const doc = new Y.Doc()
    const awareness = new awarenessProtocol.Awareness(doc)
    awareness.setLocalState(null)
    const remote = new RemoteAwareness()
    awareness.on('update', (change: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
      if (origin && typeof origin === 'object' && 'node' in origin) remote.note(String(origin.node), docId, change)
    })
    const bus = await DocBus.connect(redis.url, { nodeId: 'survivor', log })
    cleanups.push(
      () => bus.close(),
      () => awareness.destroy(),
    )
    await bus.follow(docId, 0, {
      onUpdate: () => undefined,
      onAwareness: (m) => awarenessProtocol.applyAwarenessUpdate(awareness, m.update, { node: m.node }),
      resync: async (from) => from - 1,
    })
    let lapsedAt = 0
    const membership = await NodeMembership.start(await client('survivor'), {
      nodeId: 'survivor',
      log,
      ttlMs: 10_000,
      everyMs: 2_000,
      pollMs: 500,
      onLapse: (node) => {
        lapsedAt = performance.now()
        for (const [d, ids] of remote.takeNode(node))
          if (d === docId) awarenessProtocol.removeAwarenessStates(awareness, ids, 'lapse')
      },
    })
    cleanups.push(() => membership.stop())

    const heartbeatTtlMs = 3_000
    const child: Child = await startChild({
      url: redis.url,
      nodeId: 'victim',
      lease: 'unused',
      leaseTtlMs: 1_000,
      heartbeatTtlMs,
      docId,
    })
    cleanups.push(() => child.kill())
    await until("the survivor sees the victim's client", () => awareness.getStates().has(child.ready.client))
    await until('the survivor sees the victim live', () => membership.isLive('victim'))
    await child.kill()
    const killedAt = performance.now()
    await until("the victim's awareness is gone", () => !awareness.getStates().has(child.ready.client), 20_000)
    expect(membership.isLive('victim')).toBe(false)
    expect(remote.nodes()).toEqual([])
    console.info(
      `awareness of a SIGKILLed node's client lingered ${(lapsedAt - killedAt).toFixed(0)} ms (heartbeat TTL ${heartbeatTtlMs} ms, poll 500 ms)`,
    )
  })
})
