// Control-plane notices between two cluster nodes on a real redis-server: a committed change to a
// watched prefix makes the other node re-read that prefix once, never the writer itself and never
// for other prefixes; with Redis down the write still succeeds (the notice is lost, the poll is the
// fallback), and once Redis is back notices flow again.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { ClusterNode } from '../../src/cluster/node.js'
import { HookedControlStore } from '../../src/control/hooked-store.js'
import { LevelControlStore } from '../../src/control/leveldb.js'
import type { RootDb } from '../../src/infra/data-dir.js'
import { redisPerFile } from '../helpers/redis.js'
import { until } from './bus-node.js'

const log = pino({ level: 'silent' })
const redis = redisPerFile()
const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn()
})

/** A node with its own control store and a count of the re-reads each prefix got. */
async function node(id: string): Promise<{ store: HookedControlStore; reads: Record<string, number> }> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-notices-'))
  const db = new Level<string, unknown>(dir, { valueEncoding: 'json' }) as RootDb
  await db.open()
  const n = await ClusterNode.start({ redisUrl: redis().url, log, nodeId: id })
  cleanup.push(async () => {
    await n.close()
    await db.close()
    await rm(dir, { recursive: true, force: true })
  })
  const store = new HookedControlStore(new LevelControlStore(db))
  const reads: Record<string, number> = { 'webhook/': 0, 'revoked/': 0 }
  n.notices.relay(store, {
    'webhook/': async () => void reads['webhook/']!++,
    'revoked/': async () => void reads['revoked/']!++,
  })
  return { store, reads }
}

const put = (key: string) => ({ type: 'put' as const, key, value: { at: Date.now() } })

describe('control-plane notices', () => {
  it('a change on node A makes node B re-read that prefix, once; A is not told of its own', async () => {
    const a = await node('a')
    const b = await node('b')
    await a.store.batch([put('webhook/acme/wh-1'), put('webhook/acme/wh-2')])
    await until('b re-read webhooks', () => b.reads['webhook/'] === 1)
    // A prefix nobody watches says nothing; notices keep their order, so one sent after it marks the end.
    await a.store.batch([put('asset/doc-1')])
    await a.store.batch([put('revoked/sub/x')])
    await until('b re-read the deny-list', () => b.reads['revoked/'] === 1)
    expect(b.reads).toEqual({ 'webhook/': 1, 'revoked/': 1 })
    expect(a.reads).toEqual({ 'webhook/': 0, 'revoked/': 0 })
  })

  it('with Redis down a write still succeeds (its notice is lost), and after Redis is back notices flow again', async () => {
    const a = await node('a')
    const b = await node('b')
    await redis().kill()
    await a.store.batch([put('webhook/acme/lost')])
    expect(await a.store.get('webhook/acme/lost')).toBeDefined()
    await redis().start()
    // both connections come back and resubscribe on their own
    await until(
      'b hears a notice again',
      async () => {
        await a.store.batch([put('webhook/acme/after')])
        return b.reads['webhook/']! > 0
      },
      15_000,
    )
  })
})
