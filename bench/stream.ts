// `node --import tsx bench/stream.ts [--chunks 2000] [--rate 20] [--people 50] [--no-build] [--search]
//   [--one-request] [--raw-people] [--server-node-args ARGS]`
// A streamed agent write against the same Markdown written at once (issue 49). The server is the
// production bundle in its own process pinned to CPU 0; this process (the agent and `people`
// stock y-websocket providers in the document) runs on CPU 1. An agent token streams `chunks`
// pieces of about 4 characters at `rate` chunks a second into a document the people hold open.
// Reported: server CPU of the whole stream and of one PATCH inserting the same Markdown (and their
// ratio), each chunk's time from its request to the first update a person's provider receives
// after it (p50, p99; chunks that only lengthened what is held back send none), and how often the
// agent's caret moved in a person's awareness per second of streaming, and the server's CPU by thread.
// The search index is off unless `--search`. `--one-request` sends the stream as one NDJSON body,
// a line per chunk at the same rate.
import { readdirSync, readFileSync } from 'node:fs'
import http from 'node:http'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken } from '../src/auth/capability.js'
import { loadKeyRing } from '../src/auth/keys/ring.js'
import { num, parseFlags } from './lib/args.js'
import { pinSelf } from './lib/host.js'
import { buildTandem, startPeer } from './lib/peers.js'
import { cpuSeconds } from './lib/proc.js'

const flags = parseFlags(process.argv.slice(2))
const chunks = num(flags, 'chunks') ?? 2000
const rate = num(flags, 'rate') ?? 20
const people = num(flags, 'people') ?? 50
const build = !flags.has('no-build')
const oneRequest = flags.has('one-request')
const rawPeople = flags.has('raw-people')

/** About 4 characters a chunk, as a model's tokens come: headings, paragraphs with marks, lists. */
function markdown(): string {
  const out: string[] = []
  for (let i = 0; out.join('\n\n').length < chunks * 4; i++) {
    if (i % 6 === 0) out.push(`## Section ${i / 6 + 1}`)
    else if (i % 6 === 3)
      out.push(`- item ${i} with *emphasis*\n- item ${i + 1} with a [link](https://example.com/${i})`)
    else out.push(`Paragraph ${i}: the agent writes **bold** words and \`code\` as they come, one token at a time.`)
  }
  return out.join('\n\n').slice(0, chunks * 4)
}

/** CPU ns of each thread of `pid` so far (schedstat: exact, where /proc stat counts 10 ms ticks), by name. */
function threadCpu(pid: number): Map<string, { name: string; ns: number }> {
  const out = new Map<string, { name: string; ns: number }>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
      out.set(tid, { name, ns })
    } catch {
      // the thread ended
    }
  }
  return out
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-bench-stream-'))
  const log = (l: string) => process.stderr.write(`${l}\n`)
  pinSelf('1')
  const tandemEntry = build ? await buildTandem(log) : undefined
  // search off unless --search: its embedded engine's first open (PGlite initdb, seconds of a core)
  // would land in the stream's window (bench/search.ts measures indexing)
  const peer = await startPeer('tandem', {
    dataDir: join(dir, 'data'),
    persistent: true,
    cpus: '0',
    tandemEntry,
    env: { TANDEM_SEARCH_INDEX: flags.has('search') ? 'on' : 'off' },
    // e.g. `--server-node-args "--cpu-prof --cpu-prof-dir=/tmp/prof"` to see where a chunk's time goes
    nodeArgs: String(flags.get('server-node-args') ?? '')
      .split(' ')
      .filter(Boolean),
  })
  try {
    await peer.target('bench', 'warm', 'bench') // signing keys exist once the server started
    const keys = await loadKeyRing(join(dir, 'data'), '')
    const base = `http://127.0.0.1:${peer.port}`
    const tokenFor = async (doc: string) =>
      (
        await mintToken(keys, {
          org: 'bench',
          doc,
          sub: 'agent@bench',
          acc: 'rw',
          agent: true,
          session: { id: 'bench', name: 'Bench agent' },
          ttlSec: 3600,
        })
      ).token
    const call = async (doc: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/${path}?yauth=${await tokenFor(doc)}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      })
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
      return (await res.json()) as Record<string, unknown>
    }
    const md = markdown()
    const pieces: string[] = []
    for (let i = 0; i < md.length; i += Math.ceil(md.length / chunks))
      pieces.push(md.slice(i, i + Math.ceil(md.length / chunks)))
    for (const doc of ['once', 'warmup', 'streamed'])
      await call(doc, 'PATCH', `content/v1/bench/${doc}`, { format: 'markdown', content: '# Doc\n\nStart.\n' })
    // the content worker started and warm on this document size: both figures pay the same
    await call('warmup', 'PATCH', `content/v1/bench/warmup`, { edits: [{ insert: md, at: 'end' }] })

    let cpu = cpuSeconds(peer.pid)
    await call('once', 'PATCH', `content/v1/bench/once`, { edits: [{ insert: md, at: 'end' }] })
    const onceMs = (cpuSeconds(peer.pid) - cpu) * 1000

    const token = await tokenFor('streamed')
    // `--raw-people`: one provider observes, the others are bare sockets that drop what they get,
    // so the observer's figures are the server's, not this process decoding 50 documents on one core
    const docs = Array.from({ length: rawPeople ? 1 : people }, () => new Y.Doc())
    const raw = rawPeople
      ? await Promise.all(
          Array.from(
            { length: people - 1 },
            () =>
              new Promise<WebSocket>((resolve, reject) => {
                const ws = new WebSocket(`ws://127.0.0.1:${peer.port}/bench/streamed?yauth=${token}`)
                ws.once('open', () => resolve(ws))
                ws.once('error', reject)
              }),
          ),
        )
      : []
    const providers = docs.map(
      (d) =>
        new WebsocketProvider(`ws://127.0.0.1:${peer.port}/bench`, 'streamed', d, {
          params: { yauth: token },
          WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
          disableBc: true,
        }),
    )
    await Promise.all(providers.map((p) => new Promise<void>((r) => (p.synced ? r() : p.once('sync', () => r())))))
    const observer = docs[0]!
    let updates = 0
    observer.on('update', () => updates++)
    let caretMoves = 0
    providers[0]!.awareness.on('change', ({ updated, added }: { updated: number[]; added: number[] }) => {
      caretMoves += [...updated, ...added].filter((id) => id !== observer.clientID).length
    })

    const latencies: number[] = []
    /** when the observer next receives an update after `before` updates (-1: none within 200 ms) */
    const nextUpdate = (before: number) =>
      Promise.race([
        new Promise<number>((resolve) => {
          const check = () => (updates > before ? resolve(performance.now()) : setTimeout(check, 0.5))
          check()
        }),
        new Promise<number>((res) => setTimeout(() => res(-1), 200)),
      ])
    const due = (i: number) => t0 + (i * 1000) / rate - performance.now()
    let t0 = 0
    const cpuAt = () => {
      cpu = cpuSeconds(peer.pid)
      t0 = performance.now()
      return threadCpu(peer.pid)
    }
    let threads0: ReturnType<typeof threadCpu>
    if (oneRequest) {
      // the whole stream as one NDJSON body (a line per chunk): no per-chunk request, steps coalesce
      const req = http.request(`${base}/stream/v1/bench/streamed?at=end&yauth=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
      })
      const answer = new Promise<number>((resolve, reject) => {
        req.on('response', (res) => (res.resume(), res.on('end', () => resolve(res.statusCode!))))
        req.on('error', reject)
      })
      threads0 = cpuAt()
      for (let i = 0; i < pieces.length; i++) {
        const wait = due(i)
        if (wait > 0) await new Promise((r) => setTimeout(r, wait))
        const before = updates
        const sent = performance.now()
        req.write(`${JSON.stringify({ text: pieces[i] })}\n`)
        void nextUpdate(before).then((at) => at > 0 && latencies.push(at - sent))
      }
      req.end()
      const status = await answer
      if (status !== 200) throw new Error(`the one-request stream answered ${status}`)
    } else {
      const id = (await call('streamed', 'POST', 'stream/v1/bench/streamed', { at: 'end' })).stream as string
      threads0 = cpuAt()
      for (let i = 0; i < pieces.length; i++) {
        const wait = due(i)
        if (wait > 0) await new Promise((r) => setTimeout(r, wait))
        const before = updates
        const sent = performance.now()
        const seen = nextUpdate(before)
        const r = await call('streamed', 'POST', `stream/v1/bench/streamed/${id}`, { text: pieces[i] })
        if (updates > before || (r.shown as number) > 0) {
          const at = await seen
          if (at > 0) latencies.push(at - sent)
        }
      }
      await call('streamed', 'POST', `stream/v1/bench/streamed/${id}/end`, {})
    }
    const seconds = (performance.now() - t0) / 1000
    const streamMs = (cpuSeconds(peer.pid) - cpu) * 1000
    const threads1 = threadCpu(peer.pid)
    const byThread: Record<string, number> = {}
    for (const [tid, t] of threads1) {
      const was = threads0.get(tid)?.ns ?? 0
      byThread[`${t.name}-${tid}`] = (byThread[`${t.name}-${tid}`] ?? 0) + Math.round((t.ns - was) / 1e6)
    }
    for (const p of providers) p.destroy()
    for (const ws of raw) ws.close()
    const same =
      (await call('once', 'GET', 'content/v1/bench/once')).content ===
      (await call('streamed', 'GET', 'content/v1/bench/streamed')).content
    console.log(
      JSON.stringify({
        mode: oneRequest ? 'one request (NDJSON)' : 'a request per chunk',
        people_as: rawPeople ? '1 provider + bare sockets' : 'providers',
        chars: md.length,
        chunks: pieces.length,
        rate,
        people,
        same_markdown: same,
        once_cpu_ms: Math.round(onceMs),
        stream_cpu_ms: Math.round(streamMs),
        cpu_ratio: +(streamMs / Math.max(onceMs, 1)).toFixed(1),
        cpu_ms_per_chunk: +(streamMs / pieces.length).toFixed(2),
        reach_ms_p50: +pct(latencies, 0.5).toFixed(1),
        reach_ms_p99: +pct(latencies, 0.99).toFixed(1),
        reached: latencies.length,
        caret_moves_per_s: +(caretMoves / seconds).toFixed(1),
        server_cpu_ms_by_thread: byThread,
      }),
    )
  } finally {
    await peer.stop()
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err)
    process.exit(1)
  },
)
