// The production bundle (scripts/bundle.ts: what `npm run build`, the image and the bench run): it
// keeps what a plain start does not need behind dynamic imports, and the bundled server serves a
// document to real providers, the API, and a PGlite database through the worker's own entry, and
// keeps the document across a graceful restart.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleServer, ROOT, type Bundle } from '../../scripts/bundle.js'
import { mintToken } from '../../src/auth/capability.js'
import { loadKeyRing } from '../../src/auth/keys/ring.js'
import { DEMO_DATABASE_ID } from '../../src/demo/database.js'
import type { HistoryJob, JobResult } from '../../src/history/job.js'
import { LogPacker } from '../../src/history/log-pack.js'
import { eventually, transportArgs } from '../helpers/tandem.js'

let dir: string
let bundle: Bundle
beforeAll(async () => {
  // Inside the repository: the bundle loads its external packages from node_modules up the tree.
  await mkdir(join(ROOT, 'test-artifacts'), { recursive: true })
  dir = await mkdtemp(join(ROOT, 'test-artifacts', 'server-bundle-'))
  bundle = await bundleServer(join(dir, 'dist'))
}, 60_000)
afterAll(async () => rm(dir, { recursive: true, force: true }))

/** Output files a start reaches through static imports alone, from the output holding `input`. */
function staticallyLoaded(b: Bundle, input: string): Set<string> {
  const outputs = b.metafile.outputs
  const start = Object.keys(outputs).find((o) => outputs[o]!.inputs[input])
  expect(start, `no output holds ${input}`).toBeDefined()
  const seen = new Set<string>()
  const visit = (o: string) => {
    if (seen.has(o)) return
    seen.add(o)
    for (const i of outputs[o]!.imports) if (!i.external && i.kind === 'import-statement') visit(i.path)
  }
  visit(start!)
  return seen
}

describe('production bundle', () => {
  it('loads on a plain start neither the cluster (Redis), PostgreSQL, the API listener, history nor the default metrics, only the collab path', () => {
    const loaded = new Set<string>()
    for (const entry of ['src/main.ts', 'src/cli/serve.ts']) {
      for (const o of staticallyLoaded(bundle, entry))
        for (const input of Object.keys(bundle.metafile.outputs[o]!.inputs)) loaded.add(input)
    }
    const has = (prefix: string) => [...loaded].some((i) => i.startsWith(prefix))
    for (const needed of [
      'src/compose/server.ts',
      'src/collab/uws/app.ts',
      'src/collab/room/room.ts',
      'node_modules/classic-level/',
      'node_modules/yjs/',
    ])
      expect(has(needed), needed).toBe(true)
    for (const lazy of [
      'node_modules/@redis/',
      'node_modules/pg/',
      'src/cluster/node.ts',
      'src/pg/open.ts',
      'src/pg/schema.ts',
      'src/api/listener.ts',
      'node_modules/koa/',
      'src/history/service.ts',
      'src/database-assets/',
      'node_modules/prom-client/lib/pushgateway.js',
      'node_modules/prom-client/lib/defaultMetrics.js',
      'node_modules/@opentelemetry/',
    ]) {
      expect(has(lazy), lazy).toBe(false)
    }
    expect(bundle.files).toContain('tandem.mjs')
    expect(bundle.files).toContain('pglite-worker.mjs')
    expect(bundle.files).toContain('collect-worker.mjs')
    expect(bundle.files).toContain('doc-content-worker.mjs')
    expect(bundle.files).toContain('warm-content-worker.mjs')
    expect(bundle.files).toContain('history-worker.mjs')
  })

  it('serves a document to providers, the API and a PGlite database, and keeps the document across a SIGTERM restart', async () => {
    const dataDir = join(dir, 'data')
    const first = await serve(dataDir, '--demo')
    let second: Serving | undefined
    const docs = [new Y.Doc(), new Y.Doc()]
    const providers: WebsocketProvider[] = []
    try {
      const apiKey = /demo api key: (\S+)/.exec(first.output())![1]!
      const tables = await fetch(`http://127.0.0.1:${first.apiPort}/api/v0/databases/${DEMO_DATABASE_ID}/data`, {
        headers: { 'x-api-key': apiKey },
      })
      expect(tables.status).toBe(200)
      expect(((await tables.json()) as { tables: { name: string }[] }).tables.map((t) => t.name)).toEqual([
        'customers',
        'orders',
      ])

      const { token } = await mintToken(await loadKeyRing(dataDir, ''), {
        org: 'o',
        doc: 'bundled',
        sub: 'ann@example.com',
        acc: 'rw',
        ttlSec: 600,
      })
      const connect = (port: number, d: Y.Doc) => {
        const p = new WebsocketProvider(`ws://127.0.0.1:${port}/o`, 'bundled', d, {
          params: { yauth: token },
          WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
          disableBc: true,
        })
        providers.push(p)
        return p
      }
      connect(first.collabPort, docs[0]!)
      connect(first.collabPort, docs[1]!)
      await eventually(() => expect(providers.every((p) => p.synced)).toBe(true), 20_000)
      docs[0]!.getText('t').insert(0, 'written through the bundle')
      await eventually(() => expect(docs[1]!.getText('t').toString()).toBe('written through the bundle'))
      for (const p of providers) p.destroy()

      await first.stop()
      expect(first.child.exitCode).toBe(0)
      second = await serve(dataDir)
      const fresh = new Y.Doc()
      connect(second.collabPort, fresh)
      await eventually(() => expect(fresh.getText('t').toString()).toBe('written through the bundle'), 20_000)
    } finally {
      for (const p of providers) p.destroy()
      await first.stop()
      await second?.stop()
    }
  }, 90_000)

  it('runs a history job in the bundled history worker, as a server does for a large history', async () => {
    const doc = new Y.Doc()
    const log = new LogPacker()
    doc.on('update', (update: Uint8Array) =>
      log.add({ seq: log.lastSeq + 1, user: 'ann', at: 1000 * (log.lastSeq + 1), update }),
    )
    doc.getText('t').insert(0, 'bundled ')
    doc.getText('t').insert(8, 'history')
    const job: HistoryJob = {
      from: { base: null },
      log: log.finish(),
      fold: null,
      encode: true,
      task: { kind: 'changeset', window: { from: 1500, to: 5000, by: null }, delta: true, ydoc: false },
    }
    const result = await new Promise<JobResult>((resolve, reject) => {
      // a pooled worker (src/infra/worker-thread.ts): it serves each job sent as a message
      const worker = new Worker(join(dir, 'dist', 'history-worker.mjs'))
      worker.once('message', (r: JobResult) => void worker.terminate().then(() => resolve(r)))
      worker.once('error', reject)
      worker.postMessage(job)
    })
    expect(result).toMatchObject({ answer: { inserted: 7, deleted: 0, by: ['ann'] }, lastSeq: 2 })
    expect(result.record).toBeInstanceOf(Uint8Array)
  })

  // Every upgrade happens inside uWS's upgrade handler, whether the room is loaded or not (a first
  // join loads it after the open). An upgrade after an await has to go through cork(), which in this
  // uWS build sometimes closes the fresh socket with 1006 and no close frame: through the bundle,
  // socket 12 of 1,000 into one room, socket 11 of 1,000 into new rooms (the sources under tsx lay
  // out the heap differently and do not show it).
  it.each([
    ['one room', (_i: number) => 'grade'],
    ["1,000 new rooms (every socket its room's first visitor)", (i: number) => `first-${i}`],
  ])(
    'keeps 1,000 sockets opened one after another into %s open',
    async (_name, docOf) => {
      const dataDir = join(dir, `upgrades-${docOf(0)}`)
      const server = await serve(dataDir, '--upgrades-per-sec-per-ip', '0')
      const sockets: WebSocket[] = []
      const dropped: string[] = []
      let done = false
      try {
        const keys = await loadKeyRing(dataDir, '')
        for (let i = 0; i < 1_000; i++) {
          const doc = docOf(i)
          const { token } = await mintToken(keys, { org: 'up', doc, sub: `u${i}@example.com`, acc: 'rw', ttlSec: 600 })
          const ws = new WebSocket(`ws://127.0.0.1:${server.collabPort}/up/${doc}?yauth=${token}`, {
            perMessageDeflate: false,
          })
          sockets.push(ws)
          ws.on('close', (code) => done || dropped.push(`socket ${i}: ${code}`))
          await new Promise<void>((resolve, reject) => {
            ws.once('open', () => resolve())
            ws.once('error', reject)
          })
        }
        await new Promise((r) => setTimeout(r, 1_000))
        expect(dropped).toEqual([])
        const metrics = await (await fetch(`http://127.0.0.1:${server.collabPort}/metrics`)).text()
        expect(metrics.split('\n').filter((l) => l.startsWith('tandem_ws_closes_total'))).toEqual([])
      } finally {
        done = true
        for (const ws of sockets) ws.terminate()
        await server.stop()
      }
    },
    120_000,
  )
})

interface Serving {
  child: ChildProcess
  collabPort: number
  apiPort: number
  output(): string
  stop(): Promise<void>
}

/** `node dist/tandem.mjs serve` on port 0; resolves once both listeners (and `--demo`) are up. */
async function serve(dataDir: string, ...args: string[]): Promise<Serving> {
  const child = spawn(
    process.execPath,
    [
      bundle.entry,
      'serve',
      '--data-dir',
      dataDir,
      '--collab-port',
      '0',
      '--api-port',
      '0',
      '--log-level',
      'warn',
      ...transportArgs(),
      ...args,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  const ready = args.includes('--demo') ? /demo asset: database/ : /api listening/
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => ready.test(out) && resolve())
    void exited.then(() =>
      reject(new Error(`bundled tandem exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${out}`)),
    )
  })
  const port = (name: string) => Number(new RegExp(`${name} listening on http://[^:]+:(\\d+)`).exec(out)![1])
  return {
    child,
    collabPort: port('collab'),
    apiPort: port('api'),
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
