import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import Registry from 'prom-client/lib/registry.js'
import { afterEach, describe, expect, it } from 'vitest'
import { startReceiver, type Receiver } from '../../test/webhooks/receiver.js'
import { LevelControlStore } from '../control/leveldb.js'
import type { RootDb } from '../infra/data-dir.js'
import { createLogger } from '../infra/log.js'
import { backoffMs, Dispatcher, leaseMs } from './dispatcher.js'
import { newEventId } from './events.js'
import { createWebhookMetrics } from './metrics.js'
import { Outbox } from './outbox.js'
import type { WebhookRecord } from './records.js'

describe('webhook retry schedule', () => {
  it('doubles from 1 s, jittered by +-50 %, and never waits more than 1.5 h', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 0.5))).toEqual([1000, 2000, 4000, 8000])
    expect(backoffMs(1, 0)).toBe(500)
    expect(backoffMs(1, 0.999)).toBe(1499)
    expect(backoffMs(40, 0.999)).toBeLessThanOrEqual(1.5 * 3600_000)
  })

  it('leases a claimed delivery for longer than its attempt can take', () => {
    expect(leaseMs(10_000)).toBeGreaterThan(10_000)
  })
})

// The dispatcher over a real outbox (LevelDB) and a real receiver: it sleeps between what it
// knows comes due, so each case sets a fallback that tells the paths apart.
async function eventually(check: () => void, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      return check()
    } catch (err) {
      if (Date.now() > deadline) throw err
      await new Promise((r) => setTimeout(r, 20))
    }
  }
}

describe('webhook dispatcher wakes', () => {
  const open: { close(): Promise<void> }[] = []
  afterEach(async () => {
    for (const x of open.splice(0).reverse()) await x.close()
  })

  async function setup(o: { fallbackMs: number; idle?: () => boolean }) {
    const dir = await mkdtemp(join(tmpdir(), 'tandem-dispatcher-'))
    const db = new Level<string, unknown>(dir, { valueEncoding: 'json' }) as RootDb
    await db.open()
    open.push({ close: async () => (await db.close(), await rm(dir, { recursive: true, force: true })) })
    const store = new LevelControlStore(db)
    let reads = 0
    const counted = Object.assign(Object.create(store) as LevelControlStore, {
      list: (prefix: string, limit?: number) => (reads++, store.list(prefix, limit)),
    })
    const receiver: Receiver = await startReceiver()
    open.push(receiver)
    const hook: WebhookRecord = {
      id: 'wh_1',
      workspaceId: 'ws',
      url: receiver.url,
      events: ['asset.deleted'],
      description: null,
      secret: 'whsec_' + Buffer.alloc(24, 7).toString('base64'),
      createdAtMs: 0,
    }
    const outbox = new Outbox(counted)
    const dispatcher = new Dispatcher({
      outbox,
      webhook: (id) => (id === hook.id ? hook : undefined),
      idle: o.idle ?? (() => false),
      timeoutMs: 2000,
      retryMs: 3600_000,
      allowPrivate: true,
      now: Date.now,
      log: createLogger('silent'),
      metrics: createWebhookMetrics(
        new Registry(),
        async () => 0,
        () => 1,
      ),
      fallbackMs: o.fallbackMs,
    })
    open.push({ close: () => dispatcher.stop() })
    /** Records one event as another writer would: in the store, nobody told. */
    const record = async (asset: string) => {
      const at = Date.now()
      const event = {
        id: newEventId(at),
        type: 'asset.deleted' as const,
        workspaceId: 'ws',
        orderKey: asset,
        at,
        data: { asset_id: asset, workspace_id: 'ws', by: 'u', at_ms: at, hard: false },
      }
      await store.batch(outbox.eventOps(event, [hook]))
    }
    return { dispatcher, receiver, record, reads: () => reads }
  }

  it('delivers an event recorded here at once, with no poll (the fallback is a minute)', async () => {
    const { dispatcher, receiver, record, reads } = await setup({ fallbackMs: 60_000 })
    dispatcher.start()
    await new Promise((r) => setTimeout(r, 200))
    const before = reads()
    await new Promise((r) => setTimeout(r, 800))
    expect(reads()).toBe(before) // asleep: nothing was due, nothing is read
    const t0 = performance.now()
    await record('a1')
    dispatcher.wake() // what the service's batch hook does for an event recorded in this process
    await eventually(() => expect(receiver.accepted).toHaveLength(1), 5000)
    expect(performance.now() - t0).toBeLessThan(2000)
  })

  it('finds a delivery another process queued while it slept, at the fallback', async () => {
    const { dispatcher, receiver, record } = await setup({ fallbackMs: 300 })
    dispatcher.start()
    await new Promise((r) => setTimeout(r, 100))
    await record('b1') // no wake: the admin CLI, or a node that died before sending
    await eventually(() => expect(receiver.accepted.map((e) => e.json.data.asset_id)).toEqual(['b1']), 5000)
  })

  it('wakes for a retry when it comes due, with no poll', async () => {
    const { dispatcher, receiver, record } = await setup({ fallbackMs: 60_000 })
    receiver.status = 500
    dispatcher.start()
    await record('c1')
    dispatcher.wake()
    await eventually(() => expect(receiver.all).toHaveLength(1), 5000)
    receiver.status = 204
    // the first retry is 0.5-1.5 s after the failure
    await eventually(() => expect(receiver.accepted).toHaveLength(1), 4000)
    expect(receiver.all[1]!.headers['webhook-id']).toBe(receiver.all[0]!.headers['webhook-id'])
  })

  it('reads nothing while no webhook is registered, and starts when woken', async () => {
    let registered = false
    const { dispatcher, receiver, record, reads } = await setup({ fallbackMs: 50, idle: () => !registered })
    await record('d1')
    dispatcher.start()
    await new Promise((r) => setTimeout(r, 400))
    expect(reads()).toBe(0)
    registered = true
    dispatcher.wake() // what a registration does (Webhooks.refresh)
    await eventually(() => expect(receiver.accepted).toHaveLength(1), 5000)
  })
})
