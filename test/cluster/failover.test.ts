// Real node failures under live writers, connected through HAProxy (health checks on /readyz):
// a node SIGKILLed three times (a different node each time) and a rolling restart (SIGTERM drain,
// 1012) of every node. Every update a client had seen, and in the end every update any writer
// made, is in PostgreSQL and in every writer's document: nothing lost.
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import * as Y from 'yjs'
import { WebsocketProvider } from 'y-websocket'
import { eventually } from '../helpers/tandem.js'
import { seenFromOthers, startProcessCluster, Writers, type ProcessCluster } from './process-cluster.js'

let c: ProcessCluster | undefined
let w: Writers | undefined
afterEach(async () => {
  w?.destroy()
  await c?.close()
  c = w = undefined
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Writers stop, then every writer and PostgreSQL hold every item any writer wrote. */
async function expectNothingLost(c: ProcessCluster, w: Writers, docId: string, seen: Set<string>): Promise<void> {
  w.stop()
  const all = w.all()
  try {
    await eventually(() => {
      for (const { p } of w.providers) expect(p.synced).toBe(true)
      for (const d of w.docs) expect(new Set(d.getArray<string>('items').toArray())).toEqual(all)
    }, 60_000)
  } catch (err) {
    // what a failure looks like from each side
    console.error(w.providers.map(({ p, closes }) => ({ connected: p.wsconnected, synced: p.synced, closes })))
    for (const n of c.nodes) console.error(n?.output().slice(-3000))
    throw err
  }
  expect(all.size).toBe(w.written)
  await eventually(async () => {
    const stored = new Set((await c.stored(docId)).getArray<string>('items').toArray())
    const lost = [...all].filter((x) => !stored.has(x))
    expect(lost).toEqual([])
  }, 30_000)
  const stored = new Set((await c.stored(docId)).getArray<string>('items').toArray())
  expect([...seen].filter((x) => !stored.has(x))).toEqual([])
}

describe('cluster failover through HAProxy', () => {
  it('a node SIGKILLed while its clients write, three times, a different node each time: nothing any client saw is lost', async () => {
    c = await startProcessCluster(3)
    w = await Writers.start(c, 'killed', 6, 40)
    await eventually(() => {
      for (const { p } of w!.providers) expect(p.synced).toBe(true)
    }, 30_000)
    const seen = new Set<string>()
    for (let round = 0; round < 3; round++) {
      await sleep(1_500)
      await c.stop(round, 'SIGKILL')
      for (const x of seenFromOthers(w)) seen.add(x)
      await sleep(2_500) // writers reconnect to the survivors and keep writing
      await c.start(round)
    }
    await sleep(1_000)
    expect(seen.size).toBeGreaterThan(0)
    await expectNothingLost(c, w, 'acme/killed/main', seen)
  }, 240_000)

  it('a rolling restart (SIGTERM drain, close 1012) of every node under writers loses nothing', async () => {
    c = await startProcessCluster(3)
    w = await Writers.start(c, 'rolling', 20, 100)
    await eventually(() => {
      for (const { p } of w!.providers) expect(p.synced).toBe(true)
    }, 30_000)
    for (let i = 0; i < 3; i++) {
      await sleep(1_000)
      await c.stop(i, 'SIGTERM')
      await c.start(i)
    }
    await sleep(1_000)
    const seen = seenFromOthers(w)
    await expectNothingLost(c, w, 'acme/rolling/main', seen)
    // drained sockets were told to reconnect elsewhere
    expect(w.providers.flatMap((x) => x.closes)).toContain(1012)
  }, 240_000)

  it("a SIGKILLed node's clients leave everyone else's awareness within 30 s (default heartbeat)", async () => {
    c = await startProcessCluster(3)
    const token = await c.token('aware-kill')
    // connected to the nodes directly: the victim's provider cannot reconnect elsewhere and renew
    const direct = (i: number) =>
      new WebsocketProvider(`${c!.nodes[i]!.wsUrl}/acme`, 'aware-kill', new Y.Doc(), {
        params: { yauth: token },
        WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
        disableBc: true,
      })
    const victim = direct(0)
    const watcher = direct(1)
    try {
      await eventually(() => expect(victim.synced && watcher.synced).toBe(true), 30_000)
      victim.awareness.setLocalStateField('user', { name: 'on the doomed node' })
      await eventually(() => expect(watcher.awareness.getStates().has(victim.awareness.clientID)).toBe(true))
      const t0 = Date.now()
      await c.stop(0, 'SIGKILL')
      await eventually(() => expect(watcher.awareness.getStates().has(victim.awareness.clientID)).toBe(false), 30_000)
      console.log(`dead node's awareness gone after ${Date.now() - t0} ms`)
    } finally {
      victim.destroy()
      watcher.destroy()
    }
  }, 120_000)
})
