// The bench's relay path (RoomOptions.path 'relay', --bench-ablate relay): what a room does with
// updates when it only relays them.
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createLogger } from '../../infra/log.js'
import { createMetrics } from '../../infra/metrics.js'
import { encodePermissionDenied, encodeUpdate } from '../../protocol/messages.js'
import { MemoryDocStore } from '../../storage/memory.js'
import { GroupCommitter } from '../group-commit.js'
import { Peer } from '../peer.js'
import { LoopTransport, type PeerSocket } from '../transport.js'
import { DocBuilds } from './doc-builds.js'
import { Room } from './room.js'

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
  const room = new Room({
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
    path: 'relay',
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

describe('a relay room (bench only)', () => {
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
