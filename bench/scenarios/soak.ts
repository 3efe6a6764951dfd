// Soak: a long steady load on one Tandem process, watching where its memory goes. S sockets on D
// documents send marked updates at a set rate while API readers make Q reads/s (database rows over
// PGlite, the sources list); every `sampleSec` the server's RSS (/proc) and its V8 heap and external
// memory (its own /metrics) are recorded. Reported: the RSS slope after warm-up (least squares,
// MiB/min), the same for the heap and for the rest ("native": RSS - V8 heap total), and RSS after
// the traffic stops and a cool-down passes, against the idle RSS measured before the load (with the
// same database already open, so both sides hold the same things).
import { LoadClient } from '../../src/loadtest/client.js'
import { Tally } from '../../src/loadtest/tally.js'
import { pool } from '../../src/loadtest/pool.js'
import { alive, cpuSeconds, memory } from '../lib/proc.js'
import type { Target } from '../../src/loadtest/client.js'
import { round } from '../../src/loadtest/stats.js'
import type { Metrics, ScenarioResult } from './types.js'

export interface SoakSize {
  durationSec: number
  sockets: number
  docs: number
  /** document updates per second per socket */
  rate: number
  /** API reads per second, all readers together */
  apiRps: number
  sampleSec: number
  warmupSec: number
  cooldownSec: number
  /** seconds of idle sampling before the load; the last sample is the idle baseline */
  idleSec: number
  /**
   * true: every update adds a new entry (documents grow all along, as a document being written
   * does; delivery is counted). false: each client overwrites its one entry, so document size is
   * flat and any growth is the server's own.
   */
  grow: boolean
}

export interface SoakServer {
  pid: number
  /** the collab listener's base URL (for /metrics) */
  collabUrl: string
  apiUrl: string
  apiKey: string
  /** database asset id and the tables to read */
  database: { id: string; tables: string[] }
  target(doc: string, user: string): Promise<Target>
}

export interface Sample {
  /** seconds since the load started (negative: before it) */
  t: number
  phase: 'idle' | 'load' | 'cooldown'
  rssMB: number
  heapUsedMB: number | null
  heapTotalMB: number | null
  externalMB: number | null
  /** RSS - V8 heap total: native allocations (malloc arenas, LevelDB, uWS, PGlite wasm memory) */
  nativeMB: number | null
  apiReads: number
  apiErrors: number
  delivered: number
}

const MB = 1024 * 1024

/** V8 heap and external memory from the server's Prometheus text. */
async function heapOf(collabUrl: string): Promise<{ used: number; total: number; external: number } | null> {
  try {
    const text = await (await fetch(`${collabUrl}/metrics`)).text()
    const get = (name: string): number => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN)
    return {
      used: get('tandem_nodejs_heap_size_used_bytes'),
      total: get('tandem_nodejs_heap_size_total_bytes'),
      external: get('tandem_nodejs_external_memory_bytes'),
    }
  } catch {
    return null
  }
}

/** Least-squares slope of y over x. */
export function slope(points: { x: number; y: number }[]): number | null {
  if (points.length < 2) return null
  const n = points.length
  const mx = points.reduce((a, p) => a + p.x, 0) / n
  const my = points.reduce((a, p) => a + p.y, 0) / n
  const sxx = points.reduce((a, p) => a + (p.x - mx) ** 2, 0)
  if (sxx === 0) return null
  return points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0) / sxx
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)))

export async function runSoak(
  server: SoakServer,
  size: SoakSize,
  progress: (line: string) => void,
): Promise<ScenarioResult & { samples: Sample[] }> {
  const notes: string[] = []
  const samples: Sample[] = []
  let apiReads = 0
  let apiErrors = 0
  const tally = new Tally()
  let loadStart = Date.now()

  const readOnce = async (i: number): Promise<void> => {
    const { database, apiUrl, apiKey } = server
    const kind = i % 4
    const url =
      kind === 3
        ? `${apiUrl}/api/v0/me/sources`
        : `${apiUrl}/api/v0/databases/${database.id}/data/${database.tables[i % database.tables.length]}?limit=50&offset=${(i * 7) % 200}`
    try {
      const res = await fetch(url, { headers: { 'x-api-key': apiKey } })
      await res.arrayBuffer()
      if (res.ok) apiReads++
      else apiErrors++
    } catch {
      apiErrors++
    }
  }

  const sample = async (phase: Sample['phase']): Promise<Sample> => {
    const rss = alive(server.pid) ? memory(server.pid).rss : 0
    const heap = await heapOf(server.collabUrl)
    const s: Sample = {
      t: round((Date.now() - loadStart) / 1000, 1),
      phase,
      rssMB: round(rss / MB, 1),
      heapUsedMB: heap ? round(heap.used / MB, 1) : null,
      heapTotalMB: heap ? round(heap.total / MB, 1) : null,
      externalMB: heap ? round(heap.external / MB, 1) : null,
      nativeMB: heap ? round((rss - heap.total) / MB, 1) : null,
      apiReads,
      apiErrors,
      delivered: tally.delivered,
    }
    samples.push(s)
    progress(
      `${phase} t=${s.t}s rss ${s.rssMB} MiB, heap ${s.heapUsedMB}/${s.heapTotalMB} MiB, external ${s.externalMB} MiB, native ${s.nativeMB} MiB, api ${apiReads} ok/${apiErrors} err, delivered ${tally.delivered}`,
    )
    return s
  }

  // Idle: every kind of read once (the database opens), then settle (start-up work is released).
  for (let i = 0; i < 4; i++) await readOnce(i)
  const idleEnd = Date.now() + size.idleSec * 1000
  let idle = await sample('idle')
  while (Date.now() < idleEnd) {
    await sleep(Math.min(size.sampleSec * 1000, idleEnd - Date.now()))
    idle = await sample('idle')
  }

  // Load.
  const clients: LoadClient[] = []
  for (let i = 0; i < size.sockets; i++)
    clients.push(new LoadClient(i, await server.target(`soak-${i % size.docs}`, `u${i}`), { tally }))
  progress(`connecting ${size.sockets} sockets to ${size.docs} documents`)
  const connected = await pool(clients, 50, (c) => c.connect())
  const failed = connected.filter((r) => r.status === 'rejected').length
  if (failed) notes.push(`${failed} of ${size.sockets} sockets failed to connect`)
  loadStart = Date.now()
  const end = loadStart + size.durationSec * 1000
  const cpu0 = cpuSeconds(server.pid)
  const timers: NodeJS.Timeout[] = []
  if (size.rate > 0) {
    for (const c of clients) {
      const period = 1000 / size.rate
      const send = size.grow ? () => c.sendMark() : () => c.sendOverwrite()
      const t = setTimeout(() => timers.push(setInterval(send, period)), Math.random() * period)
      timers.push(t)
    }
  }
  let reads = 0
  let inFlight = 0
  const reader = setInterval(() => {
    // Bounded: a slow server makes reads queue here, never pile up past 50 in flight.
    if (inFlight >= 50) return
    inFlight++
    void readOnce(reads++).finally(() => inFlight--)
  }, 1000 / size.apiRps)
  timers.push(reader)
  let next = loadStart
  while (Date.now() < end) {
    next += size.sampleSec * 1000
    await sleep(Math.min(next, end) - Date.now())
    if (Date.now() <= end) await sample('load')
  }
  for (const t of timers) clearInterval(t)
  const cpuSec = cpuSeconds(server.pid) - cpu0
  const openAtEnd = clients.filter((c) => c.open).length
  if (openAtEnd < size.sockets - failed)
    notes.push(`${size.sockets - failed - openAtEnd} sockets closed during the run`)
  await pool(clients, 200, (c) => c.close())
  while (inFlight > 0) await sleep(50)

  // Cool-down: rooms unload, caches expire; the process should return close to idle.
  const coolEnd = Date.now() + size.cooldownSec * 1000
  while (Date.now() < coolEnd) {
    await sleep(Math.min(size.sampleSec * 1000, coolEnd - Date.now()))
    await sample('cooldown')
  }
  const after = samples[samples.length - 1]!

  const warm = samples.filter((s) => s.phase === 'load' && s.t >= size.warmupSec)
  const perMin = (pick: (s: Sample) => number | null): number | null => {
    const pts = warm.filter((s) => pick(s) !== null).map((s) => ({ x: s.t / 60, y: pick(s)! }))
    const k = slope(pts)
    return k === null ? null : round(k, 2)
  }
  if (warm.length < 3) notes.push(`only ${warm.length} samples after warm-up: the slope is not meaningful (run longer)`)
  if (apiErrors > 0) notes.push(`${apiErrors} API reads failed`)
  const metrics: Metrics = {
    durationSec: size.durationSec,
    sockets: size.sockets,
    docs: size.docs,
    connectFailures: failed,
    updatesSent: clients.reduce((a, c) => a + c.sent, 0),
    delivered: size.grow ? tally.delivered : null,
    apiReads,
    apiErrors,
    apiReadsPerSec: round(apiReads / size.durationSec, 1),
    serverCpuSec: round(cpuSec, 1),
    idleRssMB: idle.rssMB,
    peakLoadRssMB: Math.max(...samples.filter((s) => s.phase !== 'idle').map((s) => s.rssMB)),
    rssSlopeMBPerMin: perMin((s) => s.rssMB),
    heapUsedSlopeMBPerMin: perMin((s) => s.heapUsedMB),
    nativeSlopeMBPerMin: perMin((s) => s.nativeMB),
    cooldownRssMB: after.rssMB,
    cooldownOverIdleMB: round(after.rssMB - idle.rssMB, 1),
    cooldownHeapUsedMB: after.heapUsedMB,
    cooldownNativeMB: after.nativeMB,
    idleHeapUsedMB: idle.heapUsedMB,
    idleNativeMB: idle.nativeMB,
  }
  return { metrics, notes, samples }
}
