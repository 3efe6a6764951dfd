// `node --import tsx bench/floor.ts [--rounds N]`
// The two costs every persisting Yjs server pays per update on top of the socket work (which the
// `relay` peer measures): applying it to the document (Y.applyUpdate, bench-shaped updates into
// 1,000 documents of 4 clients, like the rooms scenario: one transaction each, and 64 to a
// transaction as Tandem's rooms apply them) and appending it to the LevelDB log
// (LevelDocStore.appendMany, 80 entries across documents per batch, fsync off so the disk's
// latency does not decide the batch size). CPU time of every thread (GC and LevelDB's threads
// included) per operation, steadier than wall-clock figures on a shared machine.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import * as Y from 'yjs'
import type { RootDb } from '../src/infra/data-dir.js'
import type { AppendWrite } from '../src/storage/doc-store.js'
import { LevelDocStore } from '../src/storage/leveldb/store.js'
import { num, parseFlags } from './lib/args.js'

const flags = parseFlags(process.argv.slice(2))
const rounds = num(flags, 'rounds') ?? 20
const ROOMS = 1000
const PEERS = 4
const PER_BATCH = 80

/** Each client's updates, made offline: update i sets key `client:i` in the map `bench`. */
function updatesOf(clientID: number, count: number): Uint8Array[] {
  const d = new Y.Doc()
  d.clientID = clientID
  const out: Uint8Array[] = []
  for (let i = 0; i < count; i++) {
    const sv = Y.encodeStateVector(d)
    d.getMap('marks').set(`${clientID}:${i}`, Date.now() + i)
    out.push(Y.encodeStateAsUpdate(d, sv))
  }
  return out
}

function cpuUs(since: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(since)
  return c.user + c.system
}

const clients = Array.from({ length: ROOMS * PEERS }, (_, k) => updatesOf(1 + k, rounds))

// Y.applyUpdate, round robin over every client, `rounds` updates each.
const docs = Array.from({ length: ROOMS }, () => new Y.Doc())
let applied = 0
let t0 = process.cpuUsage()
for (let i = 0; i < rounds; i++) {
  for (let k = 0; k < clients.length; k++) {
    Y.applyUpdate(docs[Math.floor(k / PEERS)]!, clients[k]![i]!)
    applied++
  }
}
const applyUs = cpuUs(t0) / applied

// The same updates as a room applies them now (src/collab/room.ts, deferred apply): 64 of one
// document at a time in one transaction, into fresh documents.
const BATCH = 64
const batchedDocs = Array.from({ length: ROOMS }, () => new Y.Doc())
const queues: Uint8Array[][] = batchedDocs.map(() => [])
let batchedApplied = 0
const applyBatch = (r: number) => {
  const d = batchedDocs[r]!
  const q = queues[r]!
  Y.transact(d, () => {
    for (const u of q) Y.applyUpdate(d, u)
  })
  batchedApplied += q.length
  queues[r] = []
}
t0 = process.cpuUsage()
for (let i = 0; i < rounds; i++) {
  for (let k = 0; k < clients.length; k++) {
    const r = Math.floor(k / PEERS)
    queues[r]!.push(clients[k]![i]!)
    if (queues[r]!.length === BATCH) applyBatch(r)
  }
}
for (let r = 0; r < ROOMS; r++) if (queues[r]!.length) applyBatch(r)
const batchedApplyUs = cpuUs(t0) / batchedApplied

// LevelDocStore.appendMany: the same updates as log entries, one per document per write.
const dir = await mkdtemp(join(tmpdir(), 'tandem-floor-'))
const db = new Level<string, unknown>(join(dir, 'db'), { valueEncoding: 'json' }) as RootDb
await db.open()
const store = new LevelDocStore(db, { sync: false })
await store.load('warm/up/main') // opens the sublevel before the first batch
const seqs = new Array<number>(ROOMS).fill(0)
let appended = 0
let batch: AppendWrite[] = []
t0 = process.cpuUsage()
for (let i = 0; i < rounds; i++) {
  for (let k = 0; k < clients.length; k++) {
    const room = (k + i) % ROOMS
    batch.push({
      docId: `bench/r${room}/main`,
      firstSeq: ++seqs[room]!,
      entries: [{ user: `u${k % PEERS}`, at: Date.now(), update: clients[k]![i]! }],
    })
    if (batch.length === PER_BATCH) {
      await store.appendMany(batch)
      appended += batch.length
      batch = []
    }
  }
}
const appendUs = cpuUs(t0) / appended
await db.close()
await rm(dir, { recursive: true, force: true })

console.log(
  JSON.stringify({
    updateBytes: clients[0]![1]!.length,
    applyCpuUsPerUpdate: +applyUs.toFixed(2),
    batchedApplyCpuUsPerUpdate: +batchedApplyUs.toFixed(2),
    leveldbAppendCpuUsPerEntry: +appendUs.toFixed(2),
    updates: applied,
    entries: appended,
  }),
)
