// Two nodes' rooms of one document linked through the real bus and a shared store: committed
// edits converge and reach local sockets (the broadcast callback), awareness crosses nodes without
// echoing back, a peer's leave is relayed, a late follower is told who is there, a lapsed node's
// clients disappear, and a room that missed a cycle catches up from storage.
import { pino } from 'pino'
import { Registry } from 'prom-client'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { DocBus } from '../../src/cluster/bus.js'
import { createClusterMetrics } from '../../src/cluster/metrics.js'
import { RemoteAwareness } from '../../src/cluster/remote-awareness.js'
import { RoomLink } from '../../src/cluster/room-link.js'
import { Peer } from '../../src/collab/peer.js'
import { RoomAwareness } from '../../src/collab/room/awareness.js'
import { decodeAwareness, encodeAwarenessState } from '@tandem/protocol/awareness-entries'
import { decodeMessage } from '@tandem/protocol/messages'
import { MemoryDocStore } from '../../src/storage/memory.js'
import { startRedis, type RedisServer } from '../helpers/redis.js'
import { HeadLocks, metricValue, until } from './bus-node.js'

let redis: RedisServer
const cleanups: (() => Promise<unknown> | void)[] = []
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => redis.close())
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const store = new MemoryDocStore()
const locks = new HeadLocks()

interface Side {
  id: string
  doc: Y.Doc
  awareness: RoomAwareness
  /** what the room sent its own sockets: awareness updates */
  local: Uint8Array[]
  link: RoomLink
  remote: RemoteAwareness
  registry: Registry
  broadcasts: Uint8Array[]
  bus: DocBus
  /** the room's write path: apply, commit (store assigns the seq), publish */
  edit(text: string): Promise<void>
}

async function side(id: string, docId: string): Promise<Side> {
  const registry = new Registry()
  const bus = await DocBus.connect(redis.url, {
    nodeId: id,
    log: pino({ level: 'silent' }),
    metrics: createClusterMetrics(registry),
    gapGraceMs: 1_000,
  })
  const doc = new Y.Doc()
  const local: Uint8Array[] = []
  const awareness = new RoomAwareness((frame) => {
    const m = decodeMessage(frame)
    if (m.type === 'awareness') local.push(m.update)
  })
  cleanups.push(() => awareness.close())
  const state = await store.load(docId)
  for (const u of state.updates) Y.applyUpdate(doc, u.update)
  const remote = new RemoteAwareness()
  const broadcasts: Uint8Array[] = []
  const link = await RoomLink.open({
    docId,
    applyRemote: (u) => {
      Y.applyUpdate(doc, u)
      broadcasts.push(u)
    },
    awareness,
    lastSeq: state.lastSeq,
    store,
    bus,
    remote,
  })
  cleanups.push(
    () => bus.close(),
    () => link.close(),
  )
  return {
    id,
    doc,
    awareness,
    local,
    link,
    remote,
    registry,
    broadcasts,
    bus,
    async edit(text) {
      const sv = Y.encodeStateVector(doc)
      doc.getText('t').insert(doc.getText('t').length, text)
      const update = Y.encodeStateAsUpdate(doc, sv)
      const seq = await locks.run(docId, async () => {
        const head = (await store.load(docId)).lastSeq
        await store.appendMany([{ docId, firstSeq: head + 1, entries: [{ user: id, at: 1, update }] }])
        return head + 1
      })
      await bus.publish([{ docId, fromSeq: seq, toSeq: seq, update }])
    },
  }
}

/** The states a room holds, by client id. */
function statesOf(s: Side): Map<number, unknown> {
  const all = s.awareness.encodeAll()
  return new Map(all ? decodeAwareness(all).map((e) => [e.clientId, e.state]) : [])
}

const quietSocket = { send: () => true, close: () => undefined, bufferedAmount: () => 0 }
let nextClient = 1

/** A client's awareness as a peer on a node sets it; `leave` is its socket's close. */
function clientJoins(s: Side, name: string): { clientId: number; leave(): void } {
  const clientId = nextClient++
  const peer = new Peer(quietSocket, { sub: name, org: 'o', doc: 'd', branch: 'main', acc: 'rw', exp: 9e9, jti: '' })
  s.awareness.receive(peer, encodeAwarenessState(clientId, 1, { user: name }))
  return { clientId, leave: () => s.awareness.forget(peer) }
}

describe('RoomLink', () => {
  it("edits committed on either node converge and reach the other node's sockets", async () => {
    const docId = 'link/edits/main'
    const [a, b] = [await side('a', docId), await side('b', docId)]
    for (let i = 0; i < 10; i++) await (i % 2 ? a : b).edit(`${i}`)
    await until(
      'converged',
      () =>
        a.doc.getText('t').toString().length === 10 && b.doc.getText('t').toString() === a.doc.getText('t').toString(),
    )
    expect(a.broadcasts).toHaveLength(5)
    expect(b.broadcasts).toHaveLength(5)
  })

  it('a room that missed a cycle catches up from storage and broadcasts what it missed', async () => {
    const docId = 'link/missed/main'
    const a = await side('a', docId)
    const b = await side('b', docId)
    // A cycle committed by a node that died before publishing it.
    const ghost = new Y.Doc()
    Y.applyUpdate(ghost, Y.encodeStateAsUpdate(a.doc))
    ghost.getText('t').insert(0, 'ghost ')
    const update = Y.encodeStateAsUpdate(ghost, Y.encodeStateVector(a.doc))
    await store.appendMany([{ docId, firstSeq: 1, entries: [{ user: 'ghost', at: 1, update }] }])
    await a.edit('visible') // seq 2 reveals the hole
    await until(
      'b caught up',
      () =>
        b.doc.getText('t').toString() === a.doc.getText('t').toString() &&
        b.doc.getText('t').toString().includes('ghost'),
    )
    expect(await metricValue(b.registry, 'tandem_bus_resyncs_total', { reason: 'gap' })).toBe(1)
    expect(b.broadcasts.length).toBeGreaterThanOrEqual(2)
  })

  it('awareness crosses nodes without echoing back, a leave is relayed, and a late follower is told who is there', async () => {
    const docId = 'link/awareness/main'
    const a = await side('a', docId)
    const b = await side('b', docId)
    // b's "who is there?" reached a while nobody was: a announced nothing.
    await until(
      "a got b's query",
      async () =>
        (await metricValue(a.registry, 'tandem_bus_messages_total', { direction: 'in', type: 'awareness-query' })) ===
        1,
    )
    const alice = clientJoins(a, 'alice')
    await until('b sees alice', () => statesOf(b).has(alice.clientId))
    expect(b.remote.owner(docId, alice.clientId)).toBe('a')
    const bob = clientJoins(b, 'bob')
    await until('a sees bob', () => statesOf(a).has(bob.clientId))
    await new Promise((r) => setTimeout(r, 200))
    // Each node published only its own client's change: nothing bounced back.
    expect(await metricValue(a.registry, 'tandem_bus_messages_total', { direction: 'out', type: 'awareness' })).toBe(1)
    expect(await metricValue(b.registry, 'tandem_bus_messages_total', { direction: 'out', type: 'awareness' })).toBe(1)

    const c = await side('c', docId) // follows late: asks, a and b announce
    await until('c sees alice and bob', () => statesOf(c).has(alice.clientId) && statesOf(c).has(bob.clientId))
    expect(statesOf(c).get(alice.clientId)).toEqual({ user: 'alice' })

    alice.leave()
    await until('alice gone on b and c', () => !statesOf(b).has(alice.clientId) && !statesOf(c).has(alice.clientId))
  })

  it("a lapsed node's clients disappear from the room (and from its local sockets' view)", async () => {
    const docId = 'link/lapse/main'
    const a = await side('a', docId)
    const b = await side('b', docId)
    const carol = clientJoins(a, 'carol')
    await until('b sees carol', () => statesOf(b).has(carol.clientId))
    b.local.length = 0
    for (const [d, ids] of b.remote.takeNode('a')) if (d === docId) b.link.dropNode('a', ids)
    expect(statesOf(b).has(carol.clientId)).toBe(false)
    // b's own sockets are told: carol's state is null
    await until('b told its sockets', () => b.local.length > 0)
    expect(b.local.flatMap((u) => decodeAwareness(u))).toEqual([
      expect.objectContaining({ clientId: carol.clientId, state: null }),
    ])
    await new Promise((r) => setTimeout(r, 200))
    // The removal was b's own bookkeeping: it did not tell the bus (a's client may still be alive on a).
    expect(statesOf(a).has(carol.clientId)).toBe(true)
    expect(await metricValue(b.registry, 'tandem_bus_messages_total', { direction: 'out', type: 'awareness' })).toBe(0)
  })
})
