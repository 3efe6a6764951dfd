// The document bus on a real redis-server: committed cycles reach every node that follows the
// document and only those; a hole in seqs (a message never published, or lost with a connection)
// is noticed and read back from storage; Redis killed and restarted loses nothing: held cycles go
// out after the restart and every follower resyncs.
import { createClient } from '@redis/client'
import { afterEach, describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { DocBus } from '../../src/cluster/bus.js'
import { keys } from '../../src/cluster/keys.js'
import { MemoryDocStore } from '../../src/storage/memory.js'
import { freePort, redisPerFile } from '../helpers/redis.js'
import { HeadLocks, metricValue, startNode, type TestNode, until } from './bus-node.js'

const redis = redisPerFile()
const nodes: TestNode[] = []
let store: MemoryDocStore
let locks: HeadLocks

afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close()
})

async function node(id: string): Promise<TestNode> {
  store ??= new MemoryDocStore()
  // A generous grace period: on a loaded 2-core CI machine a delivery can be late without being lost.
  const n = await startNode(id, redis().url, store, locks, 1_000)
  nodes.push(n)
  return n
}

function fresh(): void {
  store = new MemoryDocStore()
  locks = new HeadLocks()
}

async function followersOf(docId: string): Promise<string[]> {
  const c = createClient({ url: redis().url })
  await c.connect()
  try {
    return (await c.sMembers(keys.followers(docId))).map(String).sort()
  } finally {
    c.destroy()
  }
}

/** Script calls Redis ran so far (each a round trip of some node's bus). */
async function scriptCalls(): Promise<number> {
  const c = createClient({ url: redis().url })
  await c.connect()
  try {
    const info = String(await c.sendCommand(['INFO', 'commandstats']))
    return [...info.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0)
  } finally {
    c.destroy()
  }
}

describe('DocBus', () => {
  it('delivers every committed cycle to the other followers, who converge with storage', async () => {
    fresh()
    const doc = 'bus/converge/main'
    const [a, b, c] = [await node('a'), await node('b'), await node('c')]
    for (const n of [a, b, c]) await n.follow(doc)
    const writes = []
    for (let i = 0; i < 30; i++) {
      const w = await [a, b, c][i % 3]!.write(doc, `${i};`)
      writes.push(w.published)
    }
    await Promise.all(writes)
    const expected = await (async () => {
      const { readMissed } = await import('../../src/cluster/resync.js')
      const Y = await import('yjs')
      const d = new Y.Doc()
      for (const u of (await readMissed(store, doc, 1)).updates) Y.applyUpdate(d, u)
      return d.getText('t').toString()
    })()
    await until('all nodes converge', () => [a, b, c].every((n) => n.text(doc) === expected))
    expect(expected.split(';').filter(Boolean)).toHaveLength(30)
    for (const n of [a, b, c]) {
      expect(n.bus.watermark(doc)).toBe(30)
      // Each node got the 20 cycles the others committed, never its own: not even read from Redis.
      expect(n.received.map((m) => m.node)).not.toContain(n.id)
      expect(n.received).toHaveLength(20)
      // Everything read from Redis was another node's: those updates and awareness queries.
      expect(await metricValue(n.registry, 'tandem_bus_received_total')).toBe(20 + n.queries.length)
      expect(await metricValue(n.registry, 'tandem_bus_gaps_total')).toBe(0)
    }
  })

  it('publishes one message per document of a cycle, and a node only follows the documents it loaded', async () => {
    fresh()
    const [a, b] = [await node('a'), await node('b')]
    const docs = ['bus/cycle/one', 'bus/cycle/two', 'bus/cycle/three']
    for (const d of docs) await a.follow(d)
    await b.follow(docs[0]!)
    await b.follow(docs[2]!)
    expect(await followersOf(docs[1]!)).toEqual(['a'])
    const Y = await import('yjs')
    const cycle = docs.map((docId, i) => {
      const d = a.docs.get(docId)!
      const sv = Y.encodeStateVector(d)
      d.getText('t').insert(0, `doc${i}`)
      return { docId, fromSeq: 1, toSeq: 1, update: Y.encodeStateAsUpdate(d, sv) }
    })
    await store.appendMany(
      cycle.map((c) => ({ docId: c.docId, firstSeq: 1, entries: [{ user: 'a', at: 1, update: c.update }] })),
    )
    await a.bus.publish(cycle)
    await until('b has both followed documents', () => b.text(docs[0]!) === 'doc0' && b.text(docs[2]!) === 'doc2')
    expect(b.docs.has(docs[1]!)).toBe(false)
    expect(b.received.map((m) => m.fromSeq)).toEqual([1, 1])
    // Two messages, to b only: nothing for the document no other node follows.
    expect(await metricValue(a.registry, 'tandem_bus_messages_total', { direction: 'out', type: 'update' })).toBe(2)

    await b.bus.unfollow(docs[0]!)
    expect(b.bus.isFollowing(docs[0]!)).toBe(false)
    expect(await followersOf(docs[0]!)).toEqual(['a'])
    await (
      await a.write(docs[0]!, '!')
    ).published
    await (
      await a.write(docs[2]!, '!')
    ).published
    await until('b sees doc2 change', () => b.text(docs[2]!) === 'doc2!')
    expect(b.received.filter((m) => m.fromSeq === 2)).toHaveLength(1) // doc2 only
  })

  it('publishes nothing while no other node follows, and never reads back its own publishes', async () => {
    fresh()
    const doc = 'bus/alone/main'
    const [a, b] = [await node('a'), await node('b')]
    await a.follow(doc)
    for (let i = 0; i < 5; i++) await (await a.write(doc, `${i}`)).published
    expect(await metricValue(a.registry, 'tandem_bus_messages_total', { direction: 'out' })).toBe(0)
    expect(await metricValue(a.registry, 'tandem_bus_received_total')).toBe(0)
    // The first cycle asked Redis (one script call, nothing sent); the next four did not call Redis at all.
    expect(await metricValue(a.registry, 'tandem_bus_unsent_total')).toBe(4)
    await b.follow(doc) // catches up from storage, then gets what follows
    expect(b.text(doc)).toBe('01234')
    // A cycle a commits before it hears b's join is not sent (b hears a's head instead): wait for it.
    await until('a heard b join', () => a.queries.some((q) => q.node === 'b'))
    await (
      await a.write(doc, '5')
    ).published
    await until('b has 5', () => b.text(doc) === '012345')
    expect(await metricValue(a.registry, 'tandem_bus_messages_total', { direction: 'out', type: 'update' })).toBe(1)
    expect(await metricValue(a.registry, 'tandem_bus_received_total')).toBe(1) // b's join, nothing of its own
    expect(await metricValue(a.registry, 'tandem_bus_unsent_total')).toBe(4)
  })

  it('hand-over to a new follower misses nothing, whatever a writer commits and publishes meanwhile (the follower race)', async () => {
    fresh()
    const [a, b] = [await node('a'), await node('b')]
    // Each round: a writes cycles back to back (commit, then publish) while b starts following
    // at a different moment; once a stops, b must hold every cycle without a gap resync: a cycle
    // it missed with no later message to reveal it would stay missing for good.
    for (let round = 0; round < 12; round++) {
      const doc = `bus/race/${round}`
      await a.follow(doc)
      let stop = false
      const writer = (async () => {
        for (let i = 0; !stop || i < 3; i++) {
          const w = await a.write(doc, `${i};`)
          await w.published
          if (i % 3 === round % 3) await new Promise((r) => setImmediate(r))
        }
      })()
      await new Promise((r) => setTimeout(r, (round % 4) * 3))
      const [, head] = await Promise.all([b.follow(doc), store.load(doc).then((l) => l.lastSeq)])
      expect(head).toBeGreaterThanOrEqual(0)
      stop = true
      await writer
      const expected = a.text(doc)
      await until(`b converged in round ${round}`, () => b.text(doc) === expected, 5_000)
      expect(b.resyncs.filter((r) => r.docId === doc && r.reason === 'gap')).toEqual([])
      expect(b.bus.watermark(doc)).toBe((await store.load(doc)).lastSeq)
    }
    expect(await metricValue(b.registry, 'tandem_bus_gaps_total')).toBe(0)
  })

  it('a cycle a lone writer commits before it hears a new follower join reaches the follower (the writer announces its head)', async () => {
    fresh()
    const [a, b] = [await node('a'), await node('b')]
    for (let round = 0; round < 10; round++) {
      const doc = `bus/head/${round}`
      await a.follow(doc)
      for (let i = 0; i < 3; i++) await (await a.write(doc, `${i}`)).published // alone: the last two are not sent
      await b.follow(doc)
      // Often committed before a hears b's join: not sent, and no later cycle reveals the hole.
      await (
        await a.write(doc, 'last')
      ).published
      // Fails within a few rounds when the head is not announced (checked).
      await until(`b has the last cycle in round ${round}`, () => b.text(doc) === '012last', 5_000)
    }
    expect(await metricValue(b.registry, 'tandem_bus_gaps_total')).toBe(0)
  })

  it("a lapsed node's registrations go (cycles stop reaching its inbox); when it comes back it registers again and catches up", async () => {
    fresh()
    const doc = 'bus/lapse/main'
    const [a, b] = [await node('a'), await node('b')]
    for (const n of [a, b]) await n.follow(doc)
    expect(await followersOf(doc)).toEqual(['a', 'b'])
    a.bus.nodeLapsed('b') // b has no heartbeat key here: it counts as lapsed
    await until('b removed', async () => (await followersOf(doc)).length === 1)
    await (
      await a.write(doc, 'unseen ')
    ).published
    await new Promise((r) => setTimeout(r, 100))
    expect(b.text(doc)).toBe('')
    b.bus.rejoinAll() // what its membership does when it finds its own heartbeat had expired
    await until('b caught up', () => b.text(doc) === 'unseen ')
    expect(await followersOf(doc)).toEqual(['a', 'b'])
    await (
      await a.write(doc, 'live')
    ).published
    await until('b follows live', () => b.text(doc) === 'unseen live')
  })

  it('a cycle committed but never published (its node died) is read from storage once a later seq shows the hole', async () => {
    fresh()
    const doc = 'bus/gap/main'
    const [a, b, dead] = [await node('a'), await node('b'), await node('dead')]
    for (const n of [a, b, dead]) await n.follow(doc)
    await (
      await a.write(doc, 'one ')
    ).published
    await dead.write(doc, 'lost? ', { publish: false }) // seq 2: committed, never announced
    await (
      await a.write(doc, 'three')
    ).published // seq 3
    await until('b resyncs the hole', () => b.text(doc).includes('lost?') && b.text(doc).includes('three'))
    expect(b.bus.watermark(doc)).toBe(3)
    expect(b.resyncs.filter((r) => r.reason === 'gap')).toEqual([{ docId: doc, from: 2, reason: 'gap' }])
    expect(await metricValue(b.registry, 'tandem_bus_gaps_total')).toBe(1)
    expect(await metricValue(b.registry, 'tandem_bus_resyncs_total', { reason: 'gap' })).toBe(1)
  })

  it('publishes that arrive out of commit order within the grace period are not a gap', async () => {
    fresh()
    const doc = 'bus/reorder/main'
    const [a, b, c] = [await node('a'), await node('b'), await node('c')]
    for (const n of [a, b, c]) await n.follow(doc)
    const first = await a.write(doc, 'x', { publish: false }) // seq 1, announced late
    const second = await c.write(doc, 'y') // seq 2, announced first
    await second.published
    await until('b applied seq 2', () => b.received.length === 1)
    expect(b.bus.watermark(doc)).toBe(0)
    const Y = await import('yjs')
    const update = Y.encodeStateAsUpdate(a.docs.get(doc)!)
    await a.bus.publish([{ docId: doc, fromSeq: first.fromSeq, toSeq: first.toSeq, update }])
    await until('b has both', () => b.bus.watermark(doc) === 2)
    await new Promise((r) => setTimeout(r, 1_300)) // past the grace period
    expect(b.resyncs.filter((r) => r.reason === 'gap')).toEqual([])
    expect(b.text(doc)).toBe(c.text(doc))
  })

  it('a follower whose connection drops resyncs on reconnect: updates published meanwhile are not silently missed', async () => {
    fresh()
    const doc = 'bus/dropped/main'
    const [a, b] = [await node('a'), await node('b')]
    for (const n of [a, b]) await n.follow(doc)
    await (
      await a.write(doc, 'before ')
    ).published
    await until('b has the first', () => b.text(doc) === 'before ')
    // Cut b's subscription connection and keep it from coming back while a publishes: with the
    // default user switched off, new connections cannot authenticate (open ones keep working).
    const admin = createClient({ url: redis().url })
    await admin.connect()
    await admin.sendCommand(['ACL', 'SETUSER', 'default', 'off'])
    try {
      const subConn = (await admin.clientList()).find((c) => c.name === 'tandem-bus-sub-b')!
      await admin.sendCommand(['CLIENT', 'KILL', 'ID', String(subConn.id)])
      await until('b is cut off', () => !b.bus.ready)
      // No later message follows to reveal a hole: only the resync on reconnect can bring it.
      await (
        await a.write(doc, 'during ')
      ).published
      await new Promise((r) => setTimeout(r, 200))
      expect(b.text(doc)).toBe('before ')
    } finally {
      await admin.sendCommand(['ACL', 'SETUSER', 'default', 'on'])
      admin.destroy()
    }
    await until('b converged', () => b.text(doc) === 'before during ')
    expect(b.received).toHaveLength(1)
    expect(b.resyncs.map((r) => r.reason)).toEqual(['follow', 'reconnect'])
    expect(b.bus.watermark(doc)).toBe(2)
    // And the bus carries on after it.
    await (
      await a.write(doc, 'after')
    ).published
    await until('b has after', () => b.text(doc) === a.text(doc))
    expect(await metricValue(b.registry, 'tandem_bus_resyncs_total', { reason: 'reconnect' })).toBeGreaterThanOrEqual(1)
  })

  it('Redis killed and restarted: cycles committed meanwhile are held (not acknowledged), go out after the restart, and every follower converges', async () => {
    fresh()
    const doc = 'bus/restart/main'
    const [a, b] = [await node('a'), await node('b')]
    for (const n of [a, b]) await n.follow(doc)
    await (
      await a.write(doc, 'start ')
    ).published
    await until('b has start', () => b.text(doc) === 'start ')

    await redis().kill()
    await until('a sees Redis gone', () => !a.bus.ready)
    let acked = 0
    const held = []
    for (let i = 0; i < 10; i++) {
      const w = await a.write(doc, `held${i} `) // committed to storage...
      held.push(w.published.then(() => acked++))
    }
    await new Promise((r) => setTimeout(r, 300))
    expect(acked).toBe(0) // ...but not acknowledged while Redis is down
    expect(a.bus.pending).toBeGreaterThan(0)
    expect(await metricValue(a.registry, 'tandem_bus_connected')).toBe(0)

    await redis().start()
    await Promise.all(held)
    expect(acked).toBe(10)
    await until('both ready', () => a.bus.ready && b.bus.ready)
    await until('b converged', () => b.text(doc) === a.text(doc))
    expect(b.bus.watermark(doc)).toBe(11)
    expect(b.text(doc).match(/held\d/g)).toHaveLength(10)
    expect(b.resyncs.some((r) => r.reason === 'reconnect')).toBe(true)
    await b.bus.settled()
    expect(await metricValue(b.registry, 'tandem_bus_connected')).toBe(1)
  })

  it('a document followed while Redis is down is served at once, then subscribed and caught up once Redis is back', async () => {
    fresh()
    const doc = 'bus/follow-offline/main'
    const [a, b] = [await node('a'), await node('b')]
    await a.follow(doc)
    await (
      await a.write(doc, 'before ')
    ).published
    await redis().kill()
    await until('b sees Redis gone', () => !b.bus.ready)
    await b.follow(doc) // loads 'before ' and goes on without Redis
    expect(b.text(doc)).toBe('before ')
    expect(b.bus.isFollowing(doc)).toBe(true)
    const during = await a.write(doc, 'during ') // committed while Redis is down, held unacknowledged
    await redis().start()
    await during.published
    await until('b caught up', () => b.text(doc) === 'before during ')
    await (
      await a.write(doc, 'after')
    ).published
    await until('b follows live', () => b.text(doc) === 'before during after')
    await until('b watermark', () => b.bus.watermark(doc) === 3)
  })

  it('relays awareness to the other followers and asks them to announce when a node follows', async () => {
    fresh()
    const doc = 'bus/awareness/main'
    const [a, b] = [await node('a'), await node('b')]
    await a.follow(doc)
    await b.follow(doc)
    await until('a was asked to announce', () => a.queries.some((q) => q.node === 'b'))
    a.bus.publishAwareness(doc, new Uint8Array([1, 2, 3]))
    await until('b got it', () => b.awareness.length === 1)
    expect(b.awareness[0]).toMatchObject({ docId: doc, node: 'a' })
    expect([...b.awareness[0]!.update]).toEqual([1, 2, 3])
    expect(a.awareness).toEqual([]) // never its own
  })

  it("sends no awareness while no other node follows; a node that joins is still told every client's", async () => {
    fresh()
    const doc = 'bus/awareness-alone/main'
    const [a, b] = [await node('a'), await node('b')]
    await a.follow(doc)
    a.bus.publishAwareness(doc, new Uint8Array([1])) // the first asks Redis: nobody else follows
    await until('a knows it is alone', () => a.bus.isAlone(doc))
    const before = await scriptCalls()
    for (let i = 0; i < 5; i++) a.bus.publishAwareness(doc, new Uint8Array([2, i]))
    await new Promise((r) => setTimeout(r, 200))
    expect(await scriptCalls()).toBe(before)
    await b.follow(doc)
    await until('a was asked to announce', () => a.queries.some((q) => q.node === 'b'))
    expect(a.bus.isAlone(doc)).toBe(false)
    a.bus.publishAwareness(doc, new Uint8Array([3])) // what the room's answer to the query sends
    await until('b got it', () => b.awareness.some((m) => m.update[0] === 3))
    expect(b.awareness.map((m) => [...m.update])).toEqual([[3]])
  })

  it('an unreachable Redis at start is a clear error that names the setting, never the URL', async () => {
    const port = await freePort()
    const err = await DocBus.connect(`redis://:s3cret-pw@127.0.0.1:${port}`, {
      nodeId: 'x',
      log: pino({ level: 'silent' }),
      connectTimeoutMs: 300,
    }).then(
      () => new Error('connected?'),
      (e: unknown) => e as Error,
    )
    expect(err).toBeInstanceOf(Error)
    expect(err.message).toMatch(/^redis-url: cannot reach Redis/)
    expect(err.message).not.toContain('s3cret')
  })
})
