// Leases and cluster-wide jobs on a real redis-server: one holder at a time, renewal beyond the
// TTL, release on shutdown, loss noticed, a SIGKILLed holder (a child process) taken over after
// expiry, and runOnce/every running a job once per period across several nodes.
import { pino } from 'pino'
import { Registry } from 'prom-client'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { keys } from '../../src/cluster/keys.js'
import { Leases } from '../../src/cluster/leases.js'
import { createClusterMetrics } from '../../src/cluster/metrics.js'
import { connectRedis, type RedisClient } from '../../src/cluster/redis.js'
import { startRedis, type RedisServer } from '../helpers/redis.js'
import { metricValue, until } from './bus-node.js'
import { type Child, startChild } from './child.js'

const log = pino({ level: 'silent' })
let redis: RedisServer
const clients: RedisClient[] = []
const leaseSets: Leases[] = []
const children: Child[] = []

beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis.close()
})
afterEach(async () => {
  if (!redis.running) await redis.start()
  for (const l of leaseSets.splice(0)) await l.close()
  for (const c of clients.splice(0)) c.destroy()
  for (const c of children.splice(0)) await c.kill()
})

async function leases(nodeId: string, registry?: Registry): Promise<Leases> {
  const c = await connectRedis({ url: redis.url, name: `test-${nodeId}` })
  clients.push(c)
  const l = new Leases(c, { nodeId, log, ...(registry ? { metrics: createClusterMetrics(registry) } : {}) })
  leaseSets.push(l)
  return l
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('Leases', () => {
  it('admits one holder, keeps it past the TTL by renewal, and hands over at once on release', async () => {
    const registry = new Registry()
    const [a, b] = [await leases('a', registry), await leases('b')]
    const [la, lb] = await Promise.all([a.tryAcquire('one', 2_000), b.tryAcquire('one', 2_000)])
    expect([la, lb].filter(Boolean)).toHaveLength(1)
    const holder = la ? { lease: la, other: b } : { lease: lb!, other: a }
    await sleep(3_000) // one and a half TTLs: only renewal keeps it
    expect(await holder.other.tryAcquire('one', 2_000)).toBeNull()
    expect(holder.lease.signal.aborted).toBe(false)
    await holder.lease.release()
    const taken = await holder.other.tryAcquire('one', 2_000)
    expect(taken).not.toBeNull()
    await taken!.release()
    expect(await metricValue(registry, 'tandem_leases_held')).toBe(0)
  })

  it("aborts the holder's signal when the lease is taken from it", async () => {
    const a = await leases('a')
    const lease = (await a.tryAcquire('stolen', 1_500))!
    const c = clients[0]!
    await c.set(keys.lease('stolen'), 'someone-else')
    await until('signal aborted', () => lease.signal.aborted, 5_000)
    // Its release does not delete the other holder's key.
    await lease.release()
    expect(await c.get(keys.lease('stolen'))).toBe('someone-else')
  })

  it('a holder cut off from Redis stops its work before the lease could have expired, and the lease is free after the restart', async () => {
    const a = await leases('a')
    const ttl = 3_000
    const lease = (await a.tryAcquire('cutoff', ttl))!
    let abortedAt = 0
    lease.signal.addEventListener('abort', () => (abortedAt = performance.now()))
    const killedAt = performance.now()
    await redis.kill()
    await until('the holder gives up', () => lease.signal.aborted, 10_000)
    // Stopped no later than the TTL after its last confirmed renewal, which was before the kill.
    expect(abortedAt - killedAt).toBeLessThan(ttl)
    await redis.start() // no persistence: the key is gone, as it would have expired
    const b = await leases('b')
    expect(await b.tryAcquire('cutoff', ttl)).not.toBeNull()
  })

  it('a holder killed with SIGKILL loses the lease when it expires, and another node takes over', async () => {
    // Generous: a loaded 2-core CI can starve the child's renewals for a second or more.
    const ttl = 4_000
    const child = await startChild({
      url: redis.url,
      nodeId: 'doomed',
      lease: 'sweep',
      leaseTtlMs: ttl,
      heartbeatTtlMs: 2_000,
      docId: 'l/x/main',
    })
    children.push(child)
    expect(child.ready.lease).toBe(true)
    const b = await leases('b')
    await sleep(ttl * 1.5) // only the child's renewals keep it
    expect(await b.tryAcquire('sweep', ttl)).toBeNull()
    await child.kill()
    const killedAt = performance.now()
    let lease = null
    await until('b takes over', async () => (lease = await b.tryAcquire('sweep', ttl)) !== null, 10_000)
    const takeoverMs = performance.now() - killedAt
    expect(lease).not.toBeNull()
    console.info(`lease takeover after SIGKILL: ${takeoverMs.toFixed(0)} ms (ttl ${ttl} ms)`)
  })

  it('runOnce runs a job on one node per period, whichever nodes ask', async () => {
    const nodes = [await leases('a'), await leases('b'), await leases('c')]
    let runs = 0
    const job = async () => {
      runs++
      await sleep(50)
    }
    const outcomes = await Promise.all(nodes.map((n) => n.runOnce('retention', 60_000, job)))
    expect(runs).toBe(1)
    expect(outcomes.filter((o) => o === 'ran')).toHaveLength(1)
    // Later asks within the period: not due, whoever asks.
    for (const n of nodes) expect(await n.runOnce('retention', 60_000, job)).toBe('not-due')
    expect(runs).toBe(1)
    // A shorter period has passed: due again.
    expect(await nodes[1]!.runOnce('retention', 40, job)).toBe('ran')
    expect(runs).toBe(2)
  })

  it('a job that fails is not recorded as run, so the next ask runs it again', async () => {
    const a = await leases('a')
    expect(await a.runOnce('flaky', 60_000, () => Promise.reject(new Error('boom')))).toBe('failed')
    let ran = false
    expect(await a.runOnce('flaky', 60_000, async () => void (ran = true))).toBe('ran')
    expect(ran).toBe(true)
  })

  it('every() on three nodes never runs the job twice at once', async () => {
    const nodes = [await leases('a'), await leases('b'), await leases('c')]
    let running = 0
    let maxRunning = 0
    let runs = 0
    for (const n of nodes) {
      n.every(
        'sites',
        200,
        async () => {
          running++
          runs++
          maxRunning = Math.max(maxRunning, running)
          await sleep(30)
          running--
        },
        50,
      )
    }
    await sleep(1_500)
    for (const n of nodes) await n.close()
    expect(maxRunning).toBe(1)
    expect(runs).toBeGreaterThanOrEqual(2)
    expect(runs).toBeLessThanOrEqual(Math.ceil(1_500 / 200) + 1)
  })
})
