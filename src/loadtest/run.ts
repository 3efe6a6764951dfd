// The coordinator: starts the shards (in this process, or one worker process each), opens the
// load window once every shard has connected, prints a progress line every second, drains, stops
// the shards, and turns their snapshots into the report. Bounded: connects time out, the window
// is the duration, the drain is --drain, a shard that does not finish within 15 s is left behind.
import type { ChildProcess } from 'node:child_process'
import type { LoadtestOptions } from './options.js'
import { checkThresholds, percentiles, type Report, type Second } from './report.js'
import { runShard, type ShardControl, type ShardSpec, type Snapshot } from './shard.js'
import { Samples, round } from './stats.js'

interface RunIo {
  progress(line: string): void
  /** starts a worker process for a shard (the CLI forks itself); without it shards run in this process */
  fork?: () => ChildProcess
  /** resolves on Ctrl-C: the run stops and reports what it has */
  interrupted?: Promise<void>
}

/** What the coordinator says to a worker process, and what it answers. */
export type ToWorker =
  { type: 'spec'; spec: ShardSpec } | { type: 'window'; at: number; until: number } | { type: 'stop' }
export type FromWorker =
  { kind: 'tick' | 'connected' | 'done'; snapshot: Snapshot } | { kind: 'error'; message: string }

interface ShardHandle {
  setWindow(at: number, until: number): void
  stop(): void
  done: Promise<void>
}

const STOP_WAIT_MS = 15_000
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)))
/** A bound that must not keep the process alive once everything else finished. */
const bound = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref())
const fmt = (v: number | null) => (v === null ? '-' : v < 10 ? v.toFixed(2) : v.toFixed(1))

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

function localShard(
  spec: ShardSpec,
  onReport: (kind: 'tick' | 'connected' | 'done', s: Snapshot) => void,
  onError: (m: string) => void,
): ShardHandle {
  const window = deferred<{ at: number; until: number }>()
  const stopped = deferred<void>()
  const ctl: ShardControl = { report: onReport, window: () => window.promise, stopped: stopped.promise }
  const done = runShard(spec, ctl).catch((e: Error) => onError(e.message))
  return { setWindow: (at, until) => window.resolve({ at, until }), stop: () => stopped.resolve(), done }
}

function workerShard(
  child: ChildProcess,
  spec: ShardSpec,
  onReport: (kind: 'tick' | 'connected' | 'done', s: Snapshot) => void,
  onError: (m: string) => void,
): ShardHandle {
  const send = (m: ToWorker) => {
    if (child.connected) child.send(m)
  }
  child.on('message', (m: FromWorker) => (m.kind === 'error' ? onError(m.message) : onReport(m.kind, m.snapshot)))
  const done = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      if (code) onError(`worker ${spec.shard} exited with ${code}`)
      resolve()
    }),
  )
  send({ type: 'spec', spec })
  return { setWindow: (at, until) => send({ type: 'window', at, until }), stop: () => send({ type: 'stop' }), done }
}

export async function runLoad(o: LoadtestOptions, assets: string[] | null, io: RunIo): Promise<Report> {
  const startedAt = new Date()
  const shards = o.workers
  const latest: Snapshot[] = []
  const connected = new Set<number>()
  const finished = new Set<number>()
  const latency = new Samples()
  const awareness = new Samples()
  const connect = new Samples()
  const shardErrors: Record<string, number> = {}
  let second: number[] = []
  const allConnected = deferred<void>()

  const onReport = (shard: number) => (kind: 'tick' | 'connected' | 'done', s: Snapshot) => {
    latest[shard] = { ...s, latency: [], awarenessLatency: [], connect: [] }
    for (const v of s.latency) latency.add(v)
    for (const v of s.awarenessLatency) awareness.add(v)
    for (const v of s.connect) connect.add(v)
    second.push(...s.latency)
    if (kind === 'connected') connected.add(shard)
    if (kind === 'done') finished.add(shard)
    if (connected.size + [...finished].filter((f) => !connected.has(f)).length >= shards) allConnected.resolve()
  }
  const onError = (shard: number) => (message: string) => {
    shardErrors[message] = (shardErrors[message] ?? 0) + 1
    finished.add(shard)
    if (connected.size + [...finished].filter((f) => !connected.has(f)).length >= shards) allConnected.resolve()
  }
  const handles: ShardHandle[] = Array.from({ length: shards }, (_, shard) => {
    const spec: ShardSpec = { options: o, assets, shard, shards }
    return io.fork
      ? workerShard(io.fork(), spec, onReport(shard), onError(shard))
      : localShard(spec, onReport(shard), onError(shard))
  })

  const sum = (pick: (s: Snapshot) => number) => latest.reduce((a, s) => a + (s ? pick(s) : 0), 0)
  const merged = (pick: (s: Snapshot) => Record<string, number>) => {
    const out: Record<string, number> = {}
    for (const s of latest) for (const [k, n] of Object.entries(s ? pick(s) : {})) out[k] = (out[k] ?? 0) + n
    return out
  }
  let interrupted = false
  const interrupt = io.interrupted?.then(() => (interrupted = true))

  // Progress, once a second, from the first connect to the end of the drain.
  const t0 = Date.now()
  let windowAt = Infinity
  let lastDelivered = 0
  const timeline: Second[] = []
  const progress = setInterval(() => {
    const delivered = sum((s) => s.delivered)
    const perSec = delivered - lastDelivered
    lastDelivered = delivered
    const s = new Samples()
    for (const v of second) s.add(v)
    second = []
    const sec = s.summary()
    if (Date.now() >= windowAt)
      timeline.push({ t: Math.round((Date.now() - windowAt) / 1000), delivered: perSec, p50: sec.p50, p99: sec.p99 })
    const all = latency.summary()
    const closes = merged((x) => x.closes)
    io.progress(
      `${Math.round((Date.now() - t0) / 1000)} s: connected ${sum((x) => x.connected)}/${o.clients}` +
        `, sent ${sum((x) => x.sent)}, delivered ${perSec}/s (${delivered}/${sum((x) => x.expected)}), p50 ${fmt(all.p50)} ms, p99 ${fmt(all.p99)} ms` +
        `, closes ${
          Object.keys(closes).length
            ? Object.entries(closes)
                .map(([k, n]) => `${k}:${n}`)
                .join(' ')
            : 'none'
        }` +
        (sum((x) => x.connectFailed) ? `, failed ${sum((x) => x.connectFailed)}` : ''),
    )
  }, 1000)

  await Promise.race([allConnected.promise, interrupt])
  if (!interrupted) {
    windowAt = Date.now() + 300
    const until = o.scenario === 'storm' ? windowAt : windowAt + o.durationSec * 1000
    for (const h of handles) h.setWindow(windowAt, until)
    await Promise.race([sleep(until - Date.now()), interrupt])
    const drainEnd = Date.now() + o.drainSec * 1000
    while (!interrupted && o.scenario !== 'storm' && Date.now() < drainEnd) {
      // only snapshots taken after a shard's last send know everything it sent
      const settled = latest.length === shards && latest.every((s) => s && s.loadOver)
      if (
        settled &&
        sum((s) => s.delivered) >= sum((s) => s.expected) &&
        sum((s) => s.awarenessDelivered) >= sum((s) => s.awarenessExpected)
      )
        break
      await Promise.race([sleep(250), interrupt])
    }
  }
  for (const h of handles) h.stop()
  await Promise.race([Promise.all(handles.map((h) => h.done)), bound(STOP_WAIT_MS)])
  clearInterval(progress)

  const storm = o.scenario === 'storm'
  const closes = merged((s) => s.closes)
  const errorKinds = { ...merged((s) => s.errors), ...shardErrors }
  for (const [code, n] of Object.entries(closes)) errorKinds[`closed under load with ${code}`] = n
  // Every failed connect, protocol error and failed renewal is one entry of a shard's error map.
  const count = (m: Record<string, number>) => Object.values(m).reduce((a, n) => a + n, 0)
  const errors = count(merged((s) => s.errors)) + count(closes) + count(shardErrors)
  const expected = storm ? o.clients : sum((s) => s.expected)
  const delivered = storm ? connect.count : sum((s) => s.delivered)
  const partial = {
    latencyMs: percentiles((storm ? connect : latency).summary()),
    deliveryRatio: expected ? round(delivered / expected, 4) : null,
    errors,
  }
  const awarenessExpected = sum((s) => s.awarenessExpected)
  return {
    scenario: o.scenario,
    protocol: o.protocol,
    target: o.target.kind === 'signing' ? o.target.wsUrl : o.target.apiUrl,
    startedAt: startedAt.toISOString(),
    workers: shards,
    rooms: assets?.length ?? o.rooms,
    clients: o.clients,
    connected: connect.count,
    rate: o.rate,
    awarenessHz: o.awarenessHz,
    durationSec: o.durationSec,
    interrupted,
    sent: sum((s) => s.sent),
    expected,
    delivered,
    ...partial,
    connectMs: percentiles(connect.summary()),
    awareness:
      awarenessExpected || o.awarenessHz || o.scenario === 'typing'
        ? {
            sent: sum((s) => s.awarenessSent),
            expected: awarenessExpected,
            delivered: sum((s) => s.awarenessDelivered),
            latencyMs: percentiles(awareness.summary()),
          }
        : null,
    closes,
    errorKinds,
    timeline,
    thresholds: checkThresholds(o.thresholds, partial),
  }
}
