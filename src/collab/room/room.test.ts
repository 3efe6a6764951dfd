import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createLogger } from '../../infra/log.js'
import { createMetrics } from '../../infra/metrics.js'
import { decodeMessage } from '@tandem/protocol/messages'
import { MemoryDocStore } from '../../storage/memory.js'
import { GroupCommitter } from '../group-commit.js'
import { Peer } from '../peer.js'
import { DocBuilds } from './doc-builds.js'
import { Room } from './room.js'
import { LoopTransport, type PeerSocket } from '../transport.js'

/** One turn of the event loop: what setImmediate scheduled (a commit cycle's start) has run. */
const turn = () => new Promise<void>((r) => setImmediate(r))

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

function setup(
  store = new MemoryDocStore(),
  docId = 'o/d/main',
  committer = new GroupCommitter({ store, log: createLogger('silent'), metrics: createMetrics() }),
  fullStateKeepMs = 0,
  compactThreshold = 3,
) {
  const room = new Room({
    docId,
    store,
    committer,
    docBuilds: new DocBuilds(2),
    transport: new LoopTransport(),
    log: createLogger('silent'),
    metrics: createMetrics(),
    now: () => 1000,
    maxDocBytes: 1 << 20,
    compactThreshold,
    maxBackpressureBytes: 1 << 20,
    fullStateKeepMs,
  })
  const peer = (acc: 'r' | 'rw' = 'rw') => {
    const s = new MemorySocket()
    const p = new Peer(s, { sub: `user-${acc}`, org: 'o', doc: 'd', branch: 'main', acc, exp: 9e9, jti: '' })
    room.join(p)
    s.sent = []
    return { s, p }
  }
  return { room, store, peer, committer }
}

/**
 * 400 KiB of text in 20 updates written in one cycle (the setup's threshold, 3 updates, would
 * compact after every cycle): a document held in several parts. Later edits of `d` queue in `updates`.
 */
async function writeLargeText(room: Room): Promise<{ d: Y.Doc; updates: Uint8Array[] }> {
  const d = new Y.Doc()
  d.clientID = 1
  const updates: Uint8Array[] = []
  d.on('update', (u: Uint8Array) => updates.push(u))
  for (let i = 0; i < 20; i++)
    d.getText('t').insert(d.getText('t').length, String.fromCharCode(97 + i).repeat(20 * 1024))
  await Promise.all(updates.splice(0).map((u) => room.applyUpdate(u, 'ann', null)))
  await room.flushed()
  return { d, updates }
}

/** The served state's parts as the room holds them. */
const partsOf = (room: Room) =>
  (room as unknown as { writes: { state: { parts(): Uint8Array[] } } }).writes.state.parts()

/** The room's document as a Y.Doc would show it. */
const textOf = (room: Room, name = 't') => room.withDoc((d) => d.getText(name).toString())

const insert = (text: string, clientID: number) => {
  const d = new Y.Doc()
  d.clientID = clientID
  d.getText('t').insert(0, text)
  return Y.encodeStateAsUpdate(d)
}

describe('Room', () => {
  it('destroy closes every peer with the code, frees the document and stops its awareness timeout timer', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    const before = timers()
    const { room, peer } = setup()
    await room.applyUpdate(insert('held', 1), 'ann', null)
    const a = peer()
    expect(timers()).toBe(before) // no awareness timer while the room holds no state
    room.receiveAwareness(a.p, new Uint8Array([1, 7, 1, 2, 123, 125])) // client 7, clock 1, {}
    expect(timers()).toBe(before + 1) // the room's one timeout timer, whatever its clients
    room.destroy(1001, 'bye')
    expect(a.s.closedWith).toBe(1001)
    expect(timers()).toBe(before) // nothing left that keeps the process alive
    expect(room.bytes).toBeLessThan(200) // the document is dropped
  })

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
    expect(await textOf(room)).toBe('')
    expect((await store.load('o/d/main')).lastSeq).toBe(0)
  })

  it('keeps updates in memory and retries when the store fails, broadcasting only once written', async () => {
    const store = new MemoryDocStore()
    const realAppend = store.appendMany.bind(store)
    let failures = 2
    store.appendMany = async (...args) => {
      if (failures-- > 0) {
        expect(b.s.sent).toHaveLength(0) // nothing was acknowledged or sent by the failed writes
        throw new Error('disk full')
      }
      return realAppend(...args)
    }
    const { room, peer } = setup(store)
    const b = peer()
    await room.applyUpdate(insert('retry', 1), 'ann', null)
    expect(failures).toBe(-1)
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
    expect(again.encodeState()).toEqual(room.encodeState())
    expect(await again.withDoc((d) => Y.encodeStateVector(d))).toEqual(
      await room.withDoc((d) => Y.encodeStateVector(d)),
    )
  })

  it('compaction collects garbage: deleted text leaves the snapshot and the room, small documents in the loop and large ones in a worker', async () => {
    for (const kb of [8, 600]) {
      const { room, store } = setup(undefined, `o/gc-${kb}/main`)
      const d = new Y.Doc()
      d.clientID = 1
      const updates: Uint8Array[] = []
      d.on('update', (u: Uint8Array) => updates.push(u))
      d.getText('t').insert(0, 'x'.repeat(kb * 1024))
      d.getText('t').insert(0, 'kept')
      d.getText('t').delete(4, kb * 1024) // everything but 'kept'
      for (const u of updates) await room.applyUpdate(u, 'ann', null)
      await room.compact()
      const snapshot = (await store.load(`o/gc-${kb}/main`)).snapshot!
      expect(snapshot.state.length).toBeLessThan(200)
      expect(room.bytes).toBeLessThan(2000)
      expect(await textOf(room)).toBe('kept')
      const again = setup(store, `o/gc-${kb}/main`).room
      await again.load()
      expect(await textOf(again)).toBe('kept')
    }
  })

  it('a compaction that collects while updates keep arriving still frees what was deleted, and loses none of them', async () => {
    const { room, store } = setup(undefined, 'o/gc-busy/main')
    const d = new Y.Doc()
    d.clientID = 1
    const updates: Uint8Array[] = []
    d.on('update', (u: Uint8Array) => updates.push(u))
    d.getText('t').insert(0, 'x'.repeat(600 * 1024))
    d.getText('t').delete(0, 600 * 1024)
    for (const u of updates.splice(0)) await room.applyUpdate(u, 'ann', null)
    const compacting = room.compact() // in a worker: the document is over 256 KiB
    for (let i = 0; i < 100; i++) {
      d.getText('t').insert(i, 'y')
      await room.applyUpdate(updates.pop()!, 'ann', null)
    }
    await compacting
    expect(room.bytes).toBeLessThan(20_000)
    expect(await textOf(room)).toBe('y'.repeat(100))
    const again = setup(store, 'o/gc-busy/main').room
    await again.load()
    expect(await textOf(again)).toBe('y'.repeat(100))
  })

  it('a large compaction without deletions merges the document beside the room into one part, keeping what arrived meanwhile', async () => {
    const { room, store } = setup(undefined, 'o/fold-busy/main')
    const { d, updates } = await writeLargeText(room)
    const before = partsOf(room)
    const compacting = room.compact() // in a worker: the document is over 256 KiB
    for (let i = 0; i < 10; i++) {
      d.getText('t').insert(0, 'y')
      await room.applyUpdate(updates.pop()!, 'ann', null)
    }
    await compacting
    const after = partsOf(room)
    expect(after[0]!.length).toBeGreaterThan(400 * 1024) // the parts before, merged into one
    expect(before.includes(after[0]!)).toBe(false)
    expect(after.length).toBeLessThanOrEqual(11) // then at most the ten that came meanwhile
    expect(await textOf(room)).toBe(d.getText('t').toString())
    const again = setup(store, 'o/fold-busy/main').room
    await again.load()
    expect(await textOf(again)).toBe(d.getText('t').toString())
  })

  it('a read of a large document held in parts is merged or diffed beside the room: the state as asked, and the parts become one', async () => {
    // No compaction meanwhile: it would fold the same parts, and whichever ends first replaces them.
    const { room } = setup(undefined, 'o/read-large/main', undefined, 0, 1000)
    const { d, updates } = await writeLargeText(room)
    const held = partsOf(room)
    expect(held.length).toBeGreaterThan(1)

    // What a client holding the first part lacks (diffed in a worker: over 256 KiB).
    const client = new Y.Doc()
    Y.applyUpdate(client, held[0]!)
    Y.applyUpdate(client, await room.readState(Y.encodeStateVector(client)))
    expect(client.getText('t').toString()).toBe(d.getText('t').toString())
    await expect(room.readState(Uint8Array.of(0xff, 0xff, 0xff))).rejects.toThrow('invalid state vector')

    // The whole state: the document when the read was asked, not what came after.
    const asked = d.getText('t').toString()
    const reading = room.readState()
    d.getText('t').insert(0, 'later ')
    await room.applyUpdate(updates.pop()!, 'ann', null)
    const answer = await reading
    const read = new Y.Doc()
    Y.applyUpdate(read, answer)
    expect(read.getText('t').toString()).toBe(asked)
    expect(partsOf(room)[0]).toBe(answer) // the parts it merged are held as the answer now
    expect(partsOf(room).length).toBe(2) // and the update that came meanwhile after it
    expect(await textOf(room)).toBe(d.getText('t').toString())
  })

  it('tells a read-only peer its change was refused and applies nothing', async () => {
    const { room, peer } = setup()
    const r = peer('r')
    room.receiveUpdate(r.p, insert('nope', 1), false)
    expect(await textOf(room)).toBe('')
    expect(Array.from(r.s.sent[0]!.subarray(0, 2))).toEqual([2, 0])
  })
})

describe('Room sync for new clients', () => {
  it('once empty clients join repeatedly within sync-cache-ms, they share one encoding of the full state, until the document changes', async () => {
    const { room, peer } = setup(undefined, undefined, undefined, 60_000)
    await room.applyUpdate(insert('large document', 1), 'ann', null)
    const a = peer()
    const b = peer()
    const b2 = peer()
    await room.answerSyncStep1(a.p, Uint8Array.of(0))
    expect(room.holdsFullState).toBe(false) // joined once: no copy kept
    await room.answerSyncStep1(b.p, Uint8Array.of(0))
    expect(room.holdsFullState).toBe(true) // joins repeat
    await room.answerSyncStep1(b2.p, Uint8Array.of(0))
    expect(b.s.sent[0]).toBe(b2.s.sent[0])
    expect(a.s.sent[0]).toEqual(b.s.sent[0])
    await room.applyUpdate(insert('more', 2), 'bob', null)
    const c = peer()
    await room.answerSyncStep1(c.p, Uint8Array.of(0))
    const got = new Y.Doc()
    Y.applyUpdate(got, (decodeMessage(c.s.sent[0]!) as { update: Uint8Array }).update)
    expect(got.getText('t').length).toBe('large document'.length + 'more'.length)
  })

  it('with sync-cache-ms 0, keeps no full state once the joins that used it are answered', async () => {
    const { room, peer } = setup()
    await room.applyUpdate(insert('large document', 1), 'ann', null)
    const a = peer()
    await room.answerSyncStep1(a.p, Uint8Array.of(0))
    expect(room.holdsFullState).toBe(false)
    const b = peer()
    await room.answerSyncStep1(b.p, Uint8Array.of(0))
    expect(b.s.sent[0]).toEqual(a.s.sent[0])
  })
})

describe('Room updates that change nothing', () => {
  const deleteFirst = (base: Uint8Array) => {
    const d = new Y.Doc()
    d.clientID = 99
    Y.applyUpdate(d, base)
    const sv = Y.encodeStateVector(d)
    d.getText('t').delete(0, 1)
    return Y.encodeStateAsUpdate(d, sv)
  }

  it('a re-sent update, a re-sent deletion and an empty update are neither stored nor broadcast', async () => {
    const { room, store, peer } = setup()
    const a = peer()
    const b = peer()
    const first = insert('hello', 1)
    await room.applyUpdate(first, 'ann', a.p)
    const del = deleteFirst(first)
    await room.applyUpdate(del, 'ann', a.p)
    expect(b.s.sent).toHaveLength(2)
    for (let i = 0; i < 20; i++) {
      await room.applyUpdate(first, 'ann', a.p)
      await room.applyUpdate(del, 'ann', a.p)
      await room.applyUpdate(Uint8Array.of(0, 0), 'ann', a.p)
    }
    expect((await store.load('o/d/main')).updates).toHaveLength(2)
    expect(b.s.sent).toHaveLength(2)
    expect(await textOf(room)).toBe('ello')
  })

  it('an update waiting for a missing dependency is stored once, and its re-send is not', async () => {
    const { room, store } = setup()
    const d = new Y.Doc()
    d.clientID = 7
    d.getText('t').insert(0, 'a')
    const sv = Y.encodeStateVector(d)
    d.getText('t').insert(1, 'b')
    const second = Y.encodeStateAsUpdate(d, sv) // depends on the first, not sent yet
    await room.applyUpdate(second, 'ann', null)
    await room.applyUpdate(second, 'ann', null)
    expect((await store.load('o/d/main')).updates).toHaveLength(1)
    await room.applyUpdate(Y.encodeStateAsUpdate(d), 'ann', null)
    expect(await textOf(room)).toBe('ab')
    const again = setup(store).room
    await again.load()
    expect(await textOf(again)).toBe('ab')
  })
})

describe('Deferred apply', () => {
  /** What a document holds: its state vector and every root's content (encodings may split structs differently). */
  const content = (d: Y.Doc) => ({
    sv: Object.fromEntries(Y.decodeStateVector(Y.encodeStateVector(d))),
    t: d.getText('t').toString(),
    m: d.getMap('m').toJSON(),
    x: d.getXmlFragment('x').toString(),
  })

  /** Edits of three clients, each an update, as editors make them (typing, deleting, map sets, nested types). */
  function editStream(seed: number, count: number): Uint8Array[] {
    let x = seed
    const rand = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const docs = [1, 2, 3].map((id) => {
      const d = new Y.Doc()
      d.clientID = id
      return d
    })
    const out: Uint8Array[] = []
    for (let i = 0; i < count; i++) {
      const d = docs[Math.floor(rand() * 3)]!
      const sv = Y.encodeStateVector(d)
      const t = d.getText('t')
      const r = rand()
      if (r < 0.5 || t.length === 0) t.insert(Math.floor(rand() * (t.length + 1)), String.fromCharCode(97 + (i % 26)))
      else if (r < 0.7) t.delete(Math.floor(rand() * t.length), 1)
      else if (r < 0.85) d.getMap('m').set(`k${i % 5}`, i)
      else if (r < 0.95) d.getXmlFragment('x').insert(0, [new Y.XmlElement('p')])
      else (d.getXmlFragment('x').get(0) as Y.XmlElement | undefined)?.insert(0, [new Y.XmlText(`n${i}`)])
      const u = Y.encodeStateAsUpdate(d, sv)
      out.push(u)
      // the others catch up with it now and then (whole states: no holes), so origins cross clients
      for (const o of docs) if (o !== d && rand() < 0.7) Y.applyUpdate(o, Y.encodeStateAsUpdate(d))
    }
    for (const a of docs) for (const b of docs) if (a !== b) Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
    return out
  }

  it('ends with the document an eager Y.Doc gets, stores each change once and reloads the same, with updates reordered, re-sent and read meanwhile', async () => {
    for (const seed of [1, 2, 3, 4]) {
      const { room, store, peer } = setup(new MemoryDocStore(), `o/fuzz-${seed}/main`)
      const watcher = peer()
      const eager = new Y.Doc()
      let x = seed * 7919
      const rand = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
      const stream = editStream(seed, 300)
      const sent: Uint8Array[] = []
      const waits: Promise<unknown>[] = []
      for (let i = 0; i < stream.length; i++) {
        // now and then a later update first (a hole), a re-send, or a read of the document
        if (rand() < 0.1 && i + 1 < stream.length) [stream[i], stream[i + 1]] = [stream[i + 1]!, stream[i]!]
        const batch = [stream[i]!]
        if (rand() < 0.1)
          batch.push(
            sent[
              rand() < 0.5
                ? sent.length - 1 - Math.floor(rand() * Math.min(3, sent.length))
                : Math.floor(rand() * sent.length)
            ] ?? stream[i]!,
          )
        for (const u of batch) {
          sent.push(u)
          Y.applyUpdate(eager, u)
          waits.push(room.applyUpdate(u, 'ann', null))
        }
        if (rand() < 0.05) expect(await room.withDoc(content)).toEqual(content(eager))
      }
      await Promise.all(waits)
      expect(await room.withDoc(content)).toEqual(content(eager))
      // what peers were sent and what was stored rebuild the same document
      const fromPeers = new Y.Doc()
      for (const m of watcher.s.sent) Y.applyUpdate(fromPeers, (decodeMessage(m) as { update: Uint8Array }).update)
      expect(content(fromPeers)).toEqual(content(eager))
      const again = setup(store, `o/fuzz-${seed}/main`).room
      await again.load()
      expect(await again.withDoc(content)).toEqual(content(eager))
      // a re-sent update never reaches the log twice
      const log: Uint8Array[] = []
      for await (const e of store.readLog(`o/fuzz-${seed}/main`)) log.push(e.update)
      expect(log.length).toBeGreaterThan(200)
      const distinct = new Set(log.map((u) => Buffer.from(u).toString('base64')))
      expect(distinct.size).toBe(log.length)
    }
  })

  it('a room nobody reads merges what it holds in batches: fewer than 96 updates unmerged, however many arrive', async () => {
    const { room, peer } = setup()
    const a = peer()
    const held = () =>
      (room as unknown as { writes: { state: { served: { tail: unknown[] } } } }).writes.state.served.tail.length
    let most = 0
    const d = new Y.Doc()
    d.clientID = 5
    for (let i = 0; i < 400; i++) {
      const sv = Y.encodeStateVector(d)
      d.getMap('m').set(`k${i}`, i)
      void room.applyUpdate(Y.encodeStateAsUpdate(d, sv), 'ann', a.p)
      most = Math.max(most, held())
    }
    expect(most).toBeGreaterThanOrEqual(48) // they were held unmerged
    expect(most).toBeLessThan(96)
    await room.flushed()
    expect(await room.withDoc((doc) => doc.getMap('m').size)).toBe(400)
  })

  it('a join after deferred updates gets all of them in its sync answer', async () => {
    const { room, peer } = setup()
    const a = peer()
    for (let i = 0; i < 5; i++) await room.applyUpdate(insert(`w${i}`, 10 + i), 'ann', a.p)
    const late = new MemorySocket()
    room.join(new Peer(late, { sub: 'late', org: 'o', doc: 'd', branch: 'main', acc: 'r', exp: 9e9, jti: '' }))
    const step1 = decodeMessage(late.sent[0]!) as { stateVector: Uint8Array }
    expect(Y.decodeStateVector(step1.stateVector).size).toBe(5)
  })
})

describe('Group commit across rooms', () => {
  it('writes the updates of every room that arrived together in one store call, in order per room', async () => {
    const store = new MemoryDocStore()
    const committer = new GroupCommitter({ store, log: createLogger('silent'), metrics: createMetrics() })
    const calls: string[][] = []
    const realAppendMany = store.appendMany.bind(store)
    store.appendMany = async (writes) => {
      calls.push(writes.map((w) => `${w.docId}:${w.firstSeq}+${w.entries.length}`))
      return realAppendMany(writes)
    }
    const rooms = ['o/a/main', 'o/b/main', 'o/c/main'].map((id) => setup(store, id, committer))
    const watchers = rooms.map((r) => r.peer())
    const done = rooms.flatMap((r, i) => [
      r.room.applyUpdate(insert('x', 10 + i), 'ann', null),
      r.room.applyUpdate(insert('y', 20 + i), 'bob', null),
    ])
    for (const w of watchers) expect(w.s.sent).toHaveLength(0)
    await Promise.all(done)
    expect(calls).toEqual([['o/a/main:1+2', 'o/b/main:1+2', 'o/c/main:1+2']])
    for (const w of watchers) expect(w.s.sent).toHaveLength(1) // one merged frame per room per cycle
    expect((await store.load('o/b/main')).updates.map((u) => u.user)).toEqual(['ann', 'bob'])
  })

  it('keeps one write in flight: what arrives meanwhile, in any room, goes into the next one', async () => {
    const store = new MemoryDocStore()
    const committer = new GroupCommitter({ store, log: createLogger('silent'), metrics: createMetrics() })
    const realAppendMany = store.appendMany.bind(store)
    let inFlight = 0
    let maxInFlight = 0
    const sizes: number[] = []
    let release: (() => void) | null = null
    store.appendMany = async (writes) => {
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      sizes.push(writes.length)
      if (sizes.length === 1) await new Promise<void>((r) => (release = r))
      try {
        return await realAppendMany(writes)
      } finally {
        inFlight--
      }
    }
    const a = setup(store, 'o/a/main', committer).room
    const b = setup(store, 'o/b/main', committer).room
    const first = a.applyUpdate(insert('1', 1), 'ann', null)
    await new Promise((r) => setImmediate(r))
    const later = [a.applyUpdate(insert('2', 2), 'ann', null), b.applyUpdate(insert('3', 3), 'bob', null)]
    // the committer starts a cycle from setImmediate: two turns, and one that did not wait would have
    await turn()
    await turn()
    expect(sizes).toEqual([1]) // the second cycle waits for the first
    release!()
    await Promise.all([first, ...later])
    expect(maxInFlight).toBe(1)
    expect(sizes).toEqual([1, 2])
    expect((await store.load('o/a/main')).updates.map((u) => u.seq)).toEqual([1, 2])
  })

  it('a failed cycle acknowledges nothing in any room and is retried whole', async () => {
    const store = new MemoryDocStore()
    const failed: unknown[] = []
    const committed: number[] = []
    // told before the retry's backoff starts: the moment the failed cycle has been undone
    let cycleFailed!: () => void
    const failedOnce = new Promise<void>((r) => (cycleFailed = r))
    const committer = new GroupCommitter({
      store,
      log: createLogger('silent'),
      metrics: createMetrics(),
      sinks: [{ failed: (e) => (failed.push(e), cycleFailed()), committed: (w) => committed.push(w.length) }],
    })
    const realAppendMany = store.appendMany.bind(store)
    let failures = 1
    store.appendMany = async (writes) => {
      if (failures-- > 0) throw new Error('disk full')
      return realAppendMany(writes)
    }
    const a = setup(store, 'o/a/main', committer)
    const b = setup(store, 'o/b/main', committer)
    const wa = a.peer()
    const wb = b.peer()
    let acknowledged = 0
    const done = [a.room.applyUpdate(insert('1', 1), 'ann', null), b.room.applyUpdate(insert('2', 2), 'bob', null)].map(
      (p) => p.then(() => acknowledged++),
    )
    await failedOnce
    expect(failed).toHaveLength(1)
    expect(acknowledged).toBe(0)
    expect(wa.s.sent.length + wb.s.sent.length).toBe(0)
    expect(a.room.hasUnflushed && b.room.hasUnflushed).toBe(true)
    await Promise.all(done)
    expect(committed).toEqual([2])
    expect(wa.s.sent).toHaveLength(1)
    expect(wb.s.sent).toHaveLength(1)
    expect((await store.load('o/a/main')).lastSeq).toBe(1)
  })

  it('with a commit interval, the first update after a quiet spell goes at once and what follows within the interval shares one cycle and one frame', async () => {
    const store = new MemoryDocStore()
    const committer = new GroupCommitter({
      store,
      log: createLogger('silent'),
      metrics: createMetrics(),
      minIntervalMs: 1000,
    })
    const entries: number[] = []
    const realAppendMany = store.appendMany.bind(store)
    store.appendMany = async (writes) => {
      entries.push(writes.reduce((n, w) => n + w.entries.length, 0))
      return realAppendMany(writes)
    }
    const { room, peer } = setup(store, 'o/a/main', committer)
    const watcher = peer()
    const start = performance.now()
    await room.applyUpdate(insert('1', 1), 'ann', null)
    expect(performance.now() - start).toBeLessThan(1000) // not held for the interval
    expect(watcher.s.sent).toHaveLength(1)
    const later = [room.applyUpdate(insert('2', 2), 'ann', null)]
    await turn() // the committer's cycle starts, and waits for the interval
    later.push(room.applyUpdate(insert('3', 3), 'bob', null))
    await turn()
    expect(entries).toEqual([1]) // both wait for the interval, unsent
    expect(watcher.s.sent).toHaveLength(1)
    await Promise.all(later)
    expect(entries).toEqual([1, 2])
    expect(watcher.s.sent).toHaveLength(2) // the two updates in one merged frame
    const doc = new Y.Doc()
    for (const f of watcher.s.sent) {
      Y.applyUpdate(doc, (decodeMessage(f) as { update: Uint8Array }).update)
    }
    expect(doc.getText('t').toString()).toHaveLength(3)
    const log: string[] = []
    for await (const u of store.readLog('o/a/main')) log.push(u.user)
    expect(log).toEqual(['ann', 'ann', 'bob'])
  })

  it('one room failing after the write does not hold back the other rooms of the cycle', async () => {
    const store = new MemoryDocStore()
    const committer = new GroupCommitter({ store, log: createLogger('silent'), metrics: createMetrics() })
    let taken = false
    committer.enqueue({
      docId: 'o/broken/main',
      takeBatch: () =>
        taken
          ? null
          : ((taken = true),
            { docId: 'o/broken/main', firstSeq: 1, entries: [{ user: 'x', at: 1, update: insert('x', 5) }] }),
      committed: () => {
        throw new Error('broadcast failed')
      },
      restore: () => {},
    })
    const { room } = setup(store, 'o/ok/main', committer)
    await room.applyUpdate(insert('fine', 6), 'ann', null)
    expect((await store.load('o/ok/main')).lastSeq).toBe(1)
    expect((await store.load('o/broken/main')).lastSeq).toBe(1)
  })
})
