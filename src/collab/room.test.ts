import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createLogger } from '../infra/log.js'
import { createMetrics } from '../infra/metrics.js'
import { decodeMessage } from '../protocol/messages.js'
import { MemoryDocStore } from '../storage/memory.js'
import { Peer } from './peer.js'
import { Room } from './room.js'
import { LoopTransport, type PeerSocket } from './transport.js'

class MemorySocket implements PeerSocket {
  sent: Uint8Array[] = []
  closedWith: number | null = null
  send(b: Uint8Array) {
    this.sent.push(b)
    return true
  }
  close(code: number) {
    this.closedWith = code
  }
  bufferedAmount() {
    return 0
  }
}

function setup(store = new MemoryDocStore()) {
  const room = new Room({
    docId: 'o/d/main',
    store,
    transport: new LoopTransport(),
    log: createLogger('silent'),
    metrics: createMetrics(),
    now: () => 1000,
    maxDocBytes: 1 << 20,
    compactThreshold: 3,
    maxBackpressureBytes: 1 << 20,
  })
  const peer = (acc: 'r' | 'rw' = 'rw') => {
    const s = new MemorySocket()
    const p = new Peer(s, { sub: `user-${acc}`, org: 'o', doc: 'd', branch: 'main', acc, exp: 9e9, jti: '' })
    room.join(p)
    s.sent = []
    return { s, p }
  }
  return { room, store, peer }
}

const insert = (text: string, clientID: number) => {
  const d = new Y.Doc()
  d.clientID = clientID
  d.getText('t').insert(0, text)
  return Y.encodeStateAsUpdate(d)
}

describe('Room', () => {
  it('writes a tick of updates in one batch, then sends one merged message to everyone', async () => {
    const { room, store, peer } = setup()
    const a = peer()
    const b = peer()
    const c = peer()
    const p1 = room.applyUpdate(insert('a', 1), 'ann', a.p)
    const p2 = room.applyUpdate(insert('b', 2), 'bob', b.p)
    expect(c.s.sent).toHaveLength(0) // nothing goes out before it is durable
    await Promise.all([p1, p2])
    const log = (await store.load('o/d/main')).updates
    expect(log.map((u) => [u.seq, u.user])).toEqual([
      [1, 'ann'],
      [2, 'bob'],
    ])
    for (const x of [a, b, c]) expect(x.s.sent).toHaveLength(1)
    const msg = decodeMessage(c.s.sent[0]!)
    const got = new Y.Doc()
    Y.applyUpdate(got, (msg as { update: Uint8Array }).update)
    expect(got.getText('t').length).toBe(2)
  })

  it('does not echo a tick whose only author is the receiver', async () => {
    const { room, peer } = setup()
    const a = peer()
    const b = peer()
    await room.applyUpdate(insert('solo', 1), 'ann', a.p)
    expect(a.s.sent).toHaveLength(0)
    expect(b.s.sent).toHaveLength(1)
  })

  it('refuses a malformed update before it touches the document or the log', async () => {
    const { room, store } = setup()
    const good = insert('hello', 1)
    expect(() => room.applyUpdate(good.subarray(0, good.length - 3), 'ann', null)).toThrow(/malformed/)
    expect(room.doc.getText('t').toString()).toBe('')
    expect((await store.load('o/d/main')).lastSeq).toBe(0)
  })

  it('keeps updates in memory and retries when the store fails, broadcasting only once written', async () => {
    const store = new MemoryDocStore()
    const realAppend = store.append.bind(store)
    let failures = 2
    store.append = async (...args) => {
      if (failures-- > 0) throw new Error('disk full')
      return realAppend(...args)
    }
    const { room, peer } = setup(store)
    const b = peer()
    await room.applyUpdate(insert('retry', 1), 'ann', null)
    expect((await store.load('o/d/main')).updates).toHaveLength(1)
    expect(b.s.sent).toHaveLength(1)
  })

  it('compacts into a snapshot past the threshold and reloads identically', async () => {
    const { room, store } = setup()
    for (let i = 0; i < 4; i++) await room.applyUpdate(insert(String(i), 10 + i), 'ann', null)
    const state = await store.load('o/d/main')
    expect(state.snapshot?.seq).toBe(3)
    expect(state.updates.map((u) => u.seq)).toEqual([4])
    const again = setup(store).room
    await again.load()
    expect(Y.encodeStateVector(again.doc)).toEqual(Y.encodeStateVector(room.doc))
  })

  it('tells a read-only peer its change was refused and applies nothing', () => {
    const { room, peer } = setup()
    const r = peer('r')
    room.receiveUpdate(r.p, insert('nope', 1), false)
    expect(room.doc.getText('t').toString()).toBe('')
    expect(Array.from(r.s.sent[0]!.subarray(0, 2))).toEqual([2, 0])
  })
})

describe('Room sync for new clients', () => {
  it('encodes the full state once for every empty client until the document changes', async () => {
    const { room, peer } = setup()
    await room.applyUpdate(insert('large document', 1), 'ann', null)
    const a = peer()
    const b = peer()
    await room.answerSyncStep1(a.p, Uint8Array.of(0))
    await room.answerSyncStep1(b.p, Uint8Array.of(0))
    expect(a.s.sent[0]).toBe(b.s.sent[0])
    await room.applyUpdate(insert('more', 2), 'bob', null)
    const c = peer()
    await room.answerSyncStep1(c.p, Uint8Array.of(0))
    const got = new Y.Doc()
    Y.applyUpdate(got, (decodeMessage(c.s.sent[0]!) as { update: Uint8Array }).update)
    expect(got.getText('t').length).toBe('large document'.length + 'more'.length)
  })
})
