// `node --import tsx bench/webhooks.ts [--cycles N] [--events N] [--docs N]`
// Webhooks, three figures:
// 1. the outbox's cost per change on the write path: LevelDB write cycles (100 documents, one
//    update each, as group commit writes them) with the document.updated sink (mark before the
//    write, window bookkeeping after) against the same cycles without it, in this script, rounds
//    alternated; CPU µs (all threads) per change, with no webhook in the workspace and with one.
// 2. deliveries per second of one process to a fast receiver on 127.0.0.1 (rows.inserted events
//    recorded through emitWebhookEvent, the receiver answering 204 at once).
// 3. delivery latency after the debounce: document.updated of documents edited over collab REST,
//    from the event's timestamp (its window closing) to the receiver seeing it, p50 / p99.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import * as Y from 'yjs'
import type { RootDb } from '../src/infra/data-dir.js'
import { createApiKey } from '../src/control/api-keys.js'
import { createUser } from '../src/control/users.js'
import { createWorkspace } from '../src/control/workspaces.js'
import { mintToken } from '../src/auth/capability.js'
import { loadConfig } from '../src/infra/config.js'
import { createServer } from '../src/compose/server.js'
import type { AppendWrite } from '../src/storage/doc-store.js'
import { LevelDocStore } from '../src/storage/leveldb/store.js'
import { DocWindows } from '../src/webhooks/doc-windows.js'
import { emitWebhookEvent, webhookEventOps } from '../src/webhooks/emit.js'
import { startReceiver } from '../test/webhooks/receiver.js'
import { num, parseFlags } from './lib/args.js'

const flags = parseFlags(process.argv.slice(2))
const cycles = num(flags, 'cycles') ?? 2000
const events = num(flags, 'events') ?? 5000
const docs = num(flags, 'docs') ?? 200
const DOCS_PER_CYCLE = 100

const cpuUs = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!

async function writePath(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-webhooks-'))
  const db = new Level<string, unknown>(dir, { valueEncoding: 'json' }) as RootDb
  await db.open()
  const store = new LevelDocStore(db)
  await store.load('ws1/warm/main') // the sublevels finish opening
  const update = Y.encodeStateAsUpdate(
    (() => {
      const d = new Y.Doc()
      d.getMap('m').set('k', 1)
      return d
    })(),
  )
  let seq = 0
  const run = async (sink: DocWindows | null, n: number): Promise<number> => {
    const t0 = cpuUs()
    for (let c = 0; c < n; c++) {
      seq++
      const at = Date.now()
      const writes: AppendWrite[] = Array.from({ length: DOCS_PER_CYCLE }, (_, i) => ({
        docId: `ws1/doc${i}/main`,
        firstSeq: seq,
        entries: [{ user: 'u', at, update }],
      }))
      sink?.mark(writes)
      await store.appendMany(writes)
      sink?.committed(writes)
    }
    return (cpuUs() - t0) / (n * DOCS_PER_CYCLE)
  }
  const sink = (watched: boolean) =>
    new DocWindows(store, { debounceMs: 2000, watched: () => watched, emit: async () => {}, onError: () => {} })
  await run(null, 200) // warm up
  const rounds = { none: [] as number[], unwatched: [] as number[], watched: [] as number[] }
  for (let r = 0; r < 6; r++) {
    rounds.none.push(await run(null, cycles / 6))
    rounds.unwatched.push(await run(sink(false), cycles / 6))
    rounds.watched.push(await run(sink(true), cycles / 6))
  }
  const med = (xs: number[]) => pct(xs, 50)
  console.log(
    `write path (LevelDB, ${DOCS_PER_CYCLE} documents per cycle, ${cycles} cycles, median of 6 alternated rounds), CPU µs per change:`,
  )
  console.log(
    `  no sink ${med(rounds.none).toFixed(2)} | sink, no webhook ${med(rounds.unwatched).toFixed(2)} (+${(med(rounds.unwatched) - med(rounds.none)).toFixed(2)}) | sink, watched workspace ${med(rounds.watched).toFixed(2)} (+${(med(rounds.watched) - med(rounds.none)).toFixed(2)})`,
  )
  await db.close()
  await rm(dir, { recursive: true, force: true })
}

async function deliveries(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-webhooks-server-'))
  const config = loadConfig(
    [],
    {},
    { dataDir: dir, collabPort: 0, apiPort: 0, logLevel: 'silent', webhookAllowPrivate: true, fsync: false },
  )
  const server = await createServer(config)
  const receiver = await startReceiver()
  const { store } = server.deps.control
  await createUser(store, 'bench@example.com', undefined, Date.now())
  const key = (await createApiKey(store, 'bench@example.com', 'bench', Date.now())).key
  await createWorkspace(store, { name: 'bench', owner: 'bench@example.com', id: 'bench' }, Date.now())
  const res = await fetch(`http://127.0.0.1:${server.apiPort}/api/v0/workspaces/bench/webhooks`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, events: ['rows.inserted', 'document.updated'] }),
  })
  if (res.status !== 201) throw new Error(`register: ${res.status}`)
  const waitFor = async (n: number) => {
    while (receiver.accepted.length < n) await new Promise((r) => setTimeout(r, 5))
  }

  // 2. throughput: every event recorded in one batch, then timed from that batch to the last one received
  const ops = []
  for (let i = 0; i < events; i++)
    ops.push(
      ...(await webhookEventOps(
        store,
        'bench',
        'rows.inserted',
        `asset${i % 50}`,
        { asset_id: `asset${i % 50}`, table: 't', count: 1 },
        Date.now(),
      )),
    )
  const t0 = performance.now()
  await store.batch(ops)
  await waitFor(events)
  const secs = (performance.now() - t0) / 1000
  console.log(
    `deliveries: ${events} events (50 assets, in order per asset) received ${secs.toFixed(2)} s after they were recorded = ${Math.round(events / secs)} events/s to a receiver on 127.0.0.1`,
  )
  const rec = performance.now()
  for (let i = 0; i < 500; i++)
    await emitWebhookEvent(
      store,
      'bench',
      'rows.inserted',
      'recorded',
      { asset_id: 'recorded', table: 't', count: 1 },
      Date.now(),
    )
  console.log(
    `recording one event on its own (emitWebhookEvent, LevelDB control store): ${((performance.now() - rec) / 500).toFixed(2)} ms`,
  )
  await waitFor(events + 500)

  // 3. latency after the debounce
  receiver.accepted.length = 0
  const seen = new Map<string, number>()
  const origPush = receiver.accepted.push.bind(receiver.accepted)
  receiver.accepted.push = (...items) => {
    for (const it of items) seen.set(String(it.headers['webhook-id']), Date.now() - Date.parse(it.json.timestamp))
    return origPush(...items)
  }
  for (let i = 0; i < docs; i++) {
    const { token } = await mintToken(server.deps.keys, {
      org: 'bench',
      doc: `d${i}`,
      sub: 'bench@example.com',
      acc: 'rw',
      ttlSec: 600,
    })
    const y = new Y.Doc()
    y.getText('t').insert(0, `doc ${i}`)
    await fetch(`http://127.0.0.1:${server.collabPort}/ydoc/v1/bench/d${i}?yauth=${token}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/octet-stream' },
      body: Y.encodeStateAsUpdate(y),
    })
    await new Promise((r) => setTimeout(r, 10))
  }
  await waitFor(docs)
  const lat = [...seen.values()]
  console.log(
    `latency after the debounce (${docs} document.updated, ${config.webhookDebounceMs} ms debounce): p50 ${pct(lat, 50)} ms, p99 ${pct(lat, 99)} ms`,
  )
  await receiver.close()
  await server.close()
  await rm(dir, { recursive: true, force: true })
}

await writePath()
await deliveries()
