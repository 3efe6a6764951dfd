// `node --import tsx bench/write-path.ts [--scenario rooms|fanout] [--storage leveldb|memory] [--seconds S]
//   [--fsync on|off (default off)] [--commit-interval-ms N (default 0)]`
// Tandem's write path alone, in this process, without sockets: real rooms (RoomRegistry), real
// LevelDB in a temp dir, updates shaped like the bench client's (one new key in a Y.Map each),
// arriving on a real-time schedule. Reports CPU time (user + system, every thread: LevelDB's
// writes run on the libuv pool) per update and per delivery, and storage writes per second. On a
// shared machine CPU time is far steadier than wall-clock figures: it compares code versions.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import * as Y from 'yjs'
import { RoomRegistry } from '../src/collab/registry.js'
import { Peer } from '../src/collab/peer.js'
import { LoopTransport, type PeerSocket } from '../src/collab/transport.js'
import type { RootDb } from '../src/infra/data-dir.js'
import { createLogger } from '../src/infra/log.js'
import { createMetrics } from '../src/infra/metrics.js'
import { LevelDocStore } from '../src/storage/leveldb/store.js'
import { MemoryDocStore } from '../src/storage/memory.js'
import type { DocStore } from '../src/storage/doc-store.js'
import { num, parseFlags } from './lib/args.js'

const flags = parseFlags(process.argv.slice(2))
const scenario = flags.get('scenario') ?? 'rooms'
const storage = flags.get('storage') ?? 'leveldb'
const seconds = num(flags, 'seconds') ?? 8
const fsync = flags.get('fsync') === 'on'
const commitIntervalMs = num(flags, 'commit-interval-ms') ?? 0
const shape = scenario === 'fanout' ? { rooms: 1, peers: 200, rate: 1 } : { rooms: 1000, peers: 4, rate: 2 }

class CountingSocket implements PeerSocket {
  static frames = 0
  send(): boolean {
    CountingSocket.frames++
    return true
  }
  close(): void {}
  bufferedAmount(): number {
    return 0
  }
}

/** Each client's updates, made offline: update i sets key `client:i` in the map `bench`. */
function updatesOf(clientID: number, count: number): Uint8Array[] {
  const d = new Y.Doc()
  d.clientID = clientID
  const m = d.getMap('marks')
  const out: Uint8Array[] = []
  for (let i = 0; i < count; i++) {
    const sv = Y.encodeStateVector(d)
    m.set(`${clientID}:${i}`, Date.now() + i)
    out.push(Y.encodeStateAsUpdate(d, sv))
  }
  return out
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-write-path-'))
  const db = new Level<string, unknown>(join(dir, 'db'), { valueEncoding: 'json' }) as RootDb
  await db.open()
  const store: DocStore = storage === 'memory' ? new MemoryDocStore() : new LevelDocStore(db, { sync: fsync })
  let writes = 0
  const append = store.append.bind(store)
  const appendMany = store.appendMany.bind(store)
  store.append = (...a) => (writes++, append(...a))
  store.appendMany = (...a) => (writes++, appendMany(...a))
  const metrics = createMetrics()
  const registry = new RoomRegistry({
    store,
    transport: new LoopTransport(),
    log: createLogger('silent'),
    metrics,
    now: Date.now,
    maxDocBytes: 1 << 30,
    compactThreshold: 500,
    maxBackpressureBytes: 1 << 30,
    unloadDelayMs: 60_000,
    commitIntervalMs,
  })
  const perClient = Math.ceil(seconds * shape.rate) + 1
  const clients: { peer: Peer; room: Awaited<ReturnType<RoomRegistry['acquire']>>['room']; updates: Uint8Array[] }[] =
    []
  for (let r = 0; r < shape.rooms; r++) {
    const { room } = await registry.acquire({ org: 'bench', doc: `r${r}` })
    for (let c = 0; c < shape.peers; c++) {
      const peer = new Peer(new CountingSocket(), {
        sub: `u${c}`,
        org: 'bench',
        doc: `r${r}`,
        branch: 'main',
        acc: 'rw',
        exp: 9e9,
        jti: '',
      })
      room.join(peer)
      clients.push({ peer, room, updates: updatesOf(1 + r * shape.peers + c, perClient) })
    }
  }
  CountingSocket.frames = 0
  // Every client sends `rate` updates a second, spread evenly: a 1 ms timer sends what is due.
  const total = Math.floor(clients.length * shape.rate * seconds)
  const order = clients.map((_, i) => i).sort(() => Math.random() - 0.5)
  const next = new Array<number>(clients.length).fill(0)
  let sent = 0
  const start = performance.now()
  const cpu0 = process.cpuUsage()
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * clients.length * shape.rate))
      for (; sent < due; sent++) {
        const i = order[sent % order.length]!
        const c = clients[i]!
        c.room.receiveUpdate(c.peer, c.updates[next[i]!++]!, false)
      }
      if (sent >= total) {
        clearInterval(timer)
        resolve()
      }
    }, 1)
  })
  await Promise.all([...new Set(clients.map((c) => c.room))].map((r) => r.flushed()))
  const cpu = process.cpuUsage(cpu0)
  const wallSec = (performance.now() - start) / 1000
  const cpuUs = cpu.user + cpu.system
  const deliveries = sent * (shape.peers - 1)
  console.log(
    JSON.stringify({
      scenario,
      storage,
      fsync,
      commitIntervalMs,
      updates: sent,
      deliveries,
      framesSent: CountingSocket.frames,
      cpuUsPerUpdate: +(cpuUs / sent).toFixed(2),
      cpuUsPerDelivery: +(cpuUs / deliveries).toFixed(2),
      wallSec: +wallSec.toFixed(2),
      storeWritesPerSec: +(writes / wallSec).toFixed(1),
      updatesPerStoreWrite: +(sent / Math.max(1, writes)).toFixed(2),
    }),
  )
  await registry.close()
  await db.close()
  await rm(dir, { recursive: true, force: true })
}

await main()
