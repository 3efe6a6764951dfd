// The parts bench/ablate.ts composes a server from (bench/lib/ablations.ts), each on its own: what a
// relay room does with updates, a committer without sinks, metrics that record nothing, a store
// that drops appends.
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { ablationParts, parseAblations, RelayRoom, SinklessCommitter } from '../../bench/lib/ablations.js'
import { GroupCommitter } from '../../src/collab/group-commit.js'
import { Peer } from '../../src/collab/peer.js'
import { DocBuilds } from '../../src/collab/room/doc-builds.js'
import { Room } from '../../src/collab/room/room.js'
import { LoopTransport, type PeerSocket } from '../../src/collab/transport.js'
import { createLogger } from '../../src/infra/log.js'
import { createMetrics } from '../../src/infra/metrics.js'
import { encodePermissionDenied, encodeUpdate } from '@tandem/protocol/messages'
import { MemoryDocStore } from '../../src/storage/memory.js'
import { recordingSink } from '../helpers/recording-sink.js'

class MemorySocket implements PeerSocket {
  sent: Uint8Array[] = []
  send(b: Uint8Array) {
    this.sent.push(b)
    return true
  }
  close() {}
  bufferedAmount() {
    return 0
  }
}

function relayRoom() {
  const store = new MemoryDocStore()
  const log = createLogger('silent')
  const metrics = createMetrics()
  const committer = new GroupCommitter({ store, log, metrics })
  const room = new RelayRoom({
    docId: 'o/relay/main',
    store,
    committer,
    docBuilds: new DocBuilds(2),
    transport: new LoopTransport(),
    log,
    metrics,
    now: () => 1000,
    maxDocBytes: 1 << 20,
    compactThreshold: 3,
    maxBackpressureBytes: 1 << 20,
  })
  const peer = (acc: 'r' | 'rw' = 'rw') => {
    const s = new MemorySocket()
    const p = new Peer(s, { sub: `user-${acc}`, org: 'o', doc: 'relay', branch: 'main', acc, exp: 9e9, jti: '' })
    room.join(p)
    s.sent = []
    return { s, p }
  }
  return { room, store, committer, peer }
}

const insert = (text: string) => {
  const d = new Y.Doc()
  d.getText('t').insert(0, text)
  return Y.encodeStateAsUpdate(d)
}

describe('a relay room (the relay ablation)', () => {
  it('sends each socket update as it came to the other sockets, and keeps and stores nothing', async () => {
    const { room, store, committer, peer } = relayRoom()
    const a = peer()
    const b = peer()
    const c = peer()
    const update = insert('hello')
    room.receiveUpdate(a.p, update, false)
    expect(a.s.sent).toEqual([])
    expect(b.s.sent).toEqual([encodeUpdate(update)])
    expect(c.s.sent).toEqual([encodeUpdate(update)])
    // never judged: the same update again goes out again
    room.receiveUpdate(a.p, update, false)
    expect(b.s.sent).toHaveLength(2)
    expect(committer.idle).toBe(true)
    await room.flushed()
    expect((await store.load('o/relay/main')).lastSeq).toBe(0)
    expect(Y.decodeUpdate(room.encodeState()).structs).toEqual([])
  })

  it('relays REST and acknowledged updates too, settled at once; read-only peers are still refused', async () => {
    const { room, store, peer } = relayRoom()
    const a = peer()
    const r = peer('r')
    await room.applyUpdate(insert('rest'), 'ann', null)
    expect(a.s.sent).toHaveLength(1)
    let acked = false
    room.receiveAcked(r.p, insert('hp'), { resolve: () => (acked = true), reject: () => undefined })
    expect(acked).toBe(true)
    expect(a.s.sent).toHaveLength(2)
    expect(r.s.sent).toHaveLength(1) // the REST update; its own acknowledged one is not echoed
    room.receiveUpdate(r.p, insert('nope'), false)
    expect(a.s.sent).toHaveLength(2) // refused, not relayed
    expect(r.s.sent.at(-1)).toEqual(encodePermissionDenied('read-only: this token does not allow changes'))
    expect((await store.load('o/relay/main')).lastSeq).toBe(0)
  })
})

describe('a committer without sinks (the nosinks ablation)', () => {
  it('commits the same cycle with no sink told, given or added, and no mark', async () => {
    const store = new MemoryDocStore()
    const log = createLogger('silent')
    const metrics = createMetrics()
    const given = recordingSink()
    const added = recordingSink()
    const committer: GroupCommitter = new SinklessCommitter({ store, log, metrics, sinks: [given.sink] })
    committer.addSink(added.sink)
    const room = new Room({
      docId: 'o/sinks/main',
      store,
      committer,
      docBuilds: new DocBuilds(2),
      transport: new LoopTransport(),
      log,
      metrics,
      now: () => 1000,
      maxDocBytes: 1 << 20,
      compactThreshold: 100,
      maxBackpressureBytes: 1 << 20,
    })
    await room.applyUpdate(insert('x'), 'ann', null)
    const marks: string[] = []
    for await (const m of store.readMarks('test!')) marks.push(m.key)
    expect({
      given: given.calls,
      added: added.calls,
      stored: (await store.load('o/sinks/main')).lastSeq,
      marks,
    }).toEqual({ given: [], added: [], stored: 1, marks: [] })
  })
})

describe('metrics that record nothing (the nometrics ablation)', () => {
  it('keep every metric and record nothing, and collect no process metrics', async () => {
    const m = ablationParts(['nometrics']).metrics!()
    m.messagesIn.inc({ type: 'update' })
    m.rooms.set(3)
    m.updateLatency.observe(0.002)
    m.persistLatency.startTimer()()
    await m.withDefaults()
    expect((await m.messagesIn.get()).values.reduce((n, v) => n + v.value, 0)).toBe(0)
    expect((await m.rooms.get()).values[0]?.value ?? 0).toBe(0)
    expect(
      (await m.updateLatency.get()).values.find((v) => v.metricName === 'tandem_update_apply_seconds_count')?.value ??
        0,
    ).toBe(0)
    expect(
      (await m.persistLatency.get()).values.find((v) => v.metricName === 'tandem_persist_seconds_count')?.value ?? 0,
    ).toBe(0)
    const text = await m.registry.metrics()
    expect(text).toContain('tandem_ws_messages_in_total')
    expect(text).not.toContain('tandem_process_cpu_user_seconds_total')
  })
})

describe('a store that drops appends (the nowrite ablation)', () => {
  it('numbers appends on from what it loaded, writes none, and still writes snapshots', async () => {
    const inner = new MemoryDocStore()
    await inner.append('o/w/main', 1, [{ user: 'ann', at: 1, update: insert('a') }])
    const store = ablationParts(['nowrite']).docStore!(inner)
    expect((await store.load('o/w/main')).lastSeq).toBe(1)
    const entry = { user: 'ann', at: 2, update: insert('b') }
    expect(await store.appendMany([{ docId: 'o/w/main', entries: [entry, entry] }])).toEqual([
      { docId: 'o/w/main', firstSeq: 2, lastSeq: 3 },
    ])
    expect(await store.appendMany([{ docId: 'o/w/main', entries: [entry] }])).toEqual([
      { docId: 'o/w/main', firstSeq: 4, lastSeq: 4 },
    ])
    expect((await inner.load('o/w/main')).lastSeq).toBe(1)
    await store.writeSnapshot('o/w/main', { seq: 4, state: insert('ab'), at: 3 })
    expect((await inner.load('o/w/main')).snapshot?.seq).toBe(4)
  })
})

describe('ablation names', () => {
  it('are read from a comma list; an unknown one is refused, naming the known ones', () => {
    expect(parseAblations('relay, nometrics')).toEqual(['relay', 'nometrics'])
    expect(parseAblations('')).toEqual([])
    expect(() => parseAblations('relay,noapply')).toThrow(
      'ablate: unknown name "noapply"; expected any of relay, nometrics, nosinks, nowrite',
    )
  })

  it('none taken away: the server builds every part itself', () => {
    expect(ablationParts([])).toEqual({})
  })
})
