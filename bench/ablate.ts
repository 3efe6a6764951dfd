// `node --import tsx bench/ablate.ts [--variants full,relay,...] [--rounds 3] [--rooms 250] [--duration 8]
//   [--clients-per-room 4] [--rate 2] [--warmup S]   (fan-out: --rooms 1 --clients-per-room 200 --rate 1)
//   [--server-node-args --cpu-prof,--cpu-prof-dir=DIR]`
// Attributes the server's CPU per update in the rooms scenario by ablation: the full path and each
// variant with one part taken away (a part the server is composed with, bench/lib/ablations.ts, or
// a product setting where one exists), interleaved round robin, `--rounds` times, medians reported.
// Every Tandem server is `tandem serve` from the sources (tsx) started through
// bench/ablated-server.ts, LevelDB with fsync unless the variant says otherwise, pinned to CPU 0,
// this load generator to CPU 1.
// Per run: server CPU (all threads) per update sent, main-thread CPU per update, and bytes
// allocated on the V8 heap per update (--trace-gc-nvp's `allocated=` summed between the
// scenario's first and last progress lines, divided by the updates scheduled in that span).
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Ablation } from './lib/ablations.js'
import { list, num, parseFlags } from './lib/args.js'
import { pinSelf } from './lib/host.js'
import { ROOT, startPeer, type RunningPeer } from './lib/peers.js'
import { runTraffic } from './scenarios/traffic.js'

interface Variant {
  /** what the variant takes away, for the table */
  what: string
  peer?: 'tandem' | 'tandem-mem' | 'relay' | 'yws'
  env?: Record<string, string>
  /** the part taken away (bench/ablated-server.ts --ablate) */
  ablate?: Ablation
  /** a peer's own persistence on (Tandem always persists; the reference only when asked) */
  persistent?: boolean
}

const VARIANTS: Record<string, Variant> = {
  full: { what: 'nothing (LevelDB, fsync, commit interval 10 ms)' },
  mem: { what: 'LevelDB: --doc-storage memory', peer: 'tandem-mem' },
  nowrite: { what: 'the LevelDB batch (appends numbered and dropped unwritten)', ablate: 'nowrite' },
  nofsync: { what: 'fsync (TANDEM_FSYNC=false)', env: { TANDEM_FSYNC: 'false' } },
  interval0: { what: 'the commit interval (TANDEM_COMMIT_INTERVAL_MS=0)', env: { TANDEM_COMMIT_INTERVAL_MS: '0' } },
  nometrics: { what: 'metrics (they record nothing; no default metrics)', ablate: 'nometrics' },
  nosinks: { what: 'commit sinks (webhooks per-cycle marks)', ablate: 'nosinks' },
  uws: { what: 'Tandem: the bare uWS relay peer (bench/peers/uws-relay.mjs), the floor of socket work', peer: 'relay' },
  yws: { what: 'Tandem: the y-websocket reference server (in memory), the baseline of the targets', peer: 'yws' },
  ywsdb: {
    what: 'Tandem: the y-websocket reference server with its own persistence (y-leveldb, YPERSISTENCE)',
    peer: 'yws',
    persistent: true,
  },
  relay: {
    what: 'everything after the frame decode: room relays the update (no scan, judging, store, commit)',
    ablate: 'relay',
  },
}

const flags = parseFlags(process.argv.slice(2))
const names = list(flags, 'variants') ?? Object.keys(VARIANTS)
for (const n of names)
  if (!VARIANTS[n]) throw new Error(`unknown variant ${n}; known: ${Object.keys(VARIANTS).join(', ')}`)
const rounds = num(flags, 'rounds') ?? 3
const size = {
  rooms: num(flags, 'rooms') ?? 250,
  clientsPerRoom: num(flags, 'clients-per-room') ?? 4,
  rate: num(flags, 'rate') ?? 2,
  awarenessHz: 0,
  durationSec: num(flags, 'duration') ?? 8,
  drainSec: 3,
  connectConcurrency: 50,
  warmupSec: num(flags, 'warmup') ?? 0,
}
/** extra node flags for the servers, comma separated (e.g. --cpu-prof,--cpu-prof-dir=/tmp/p) */
const extraNodeArgs = list(flags, 'server-node-args') ?? []

interface Sample {
  usPerUpdate: number
  mainUsPerUpdate: number
  allocBytesPerUpdate: number | null
  /** main-thread GC pause µs per update, by GC kind */
  gcUsPerUpdate: Record<string, number>
  ratio: number | null
  foreign: number | null
}

async function runOne(name: string): Promise<Sample> {
  const v = VARIANTS[name]!
  const dataDir = mkdtempSync(join(tmpdir(), `tandem-ablate-${name}-`))
  for (const k of ['TANDEM_FSYNC', 'TANDEM_COMMIT_INTERVAL_MS']) delete process.env[k]
  Object.assign(process.env, v.env ?? {})
  let counting = false
  let allocated = 0
  /** main-thread GC pause ms by kind (s: scavenge, mc/ms: mark-compact) over the window */
  const pauses = new Map<string, number>()
  let first = 0
  let last = 0
  let peer: RunningPeer | null = null
  try {
    peer = await startPeer(v.peer ?? 'tandem', {
      dataDir,
      persistent: v.peer !== 'yws' || v.persistent === true, // the reference in memory, as in the bench, unless asked
      cpus: '0',
      tandemEntry: join(ROOT, 'bench/ablated-server.ts'),
      tandemArgs: v.ablate ? ['--ablate', v.ablate] : [],
      nodeArgs:
        v.peer === 'relay' || v.peer === 'yws'
          ? ['--trace-gc-nvp']
          : ['--import', 'tsx', '--trace-gc-nvp', ...extraNodeArgs],
      log: (chunk) => {
        if (!counting) return
        for (const m of chunk.matchAll(/allocated=(\d+)/g)) allocated += Number(m[1])
        for (const m of chunk.matchAll(/pause=([\d.]+) mutator=[\d.]+ gc=(\w+)/g))
          pauses.set(m[2]!, (pauses.get(m[2]!) ?? 0) + Number(m[1]))
      },
    })
    const res = await runTraffic('rooms', peer, size, {
      serverCores: [0],
      progress: (line) => {
        if (!/ s, delivered/.test(line)) return
        const t = performance.now()
        if (!counting) {
          counting = true
          first = t
        } else last = t
      },
    })
    counting = false
    const m = res.metrics
    const sent = m.sent ?? 0
    const spanUpdates = ((last - first) / 1000) * size.rooms * size.clientsPerRoom * size.rate
    return {
      usPerUpdate: ((m.serverCpuSec ?? NaN) * 1e6) / sent,
      mainUsPerUpdate: ((m.serverMainThreadCpuSec ?? NaN) * 1e6) / sent,
      allocBytesPerUpdate: spanUpdates > 0 ? allocated / spanUpdates : null,
      gcUsPerUpdate:
        spanUpdates > 0
          ? Object.fromEntries([...pauses].map(([k, ms]) => [k, Math.round((ms * 1e4) / spanUpdates) / 10]))
          : {},
      ratio: m.deliveryRatio ?? null,
      foreign: m.foreignLoadServerCore ?? null,
    }
  } finally {
    await peer?.stop().catch(() => undefined)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const n = s.length
  return n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2
}

async function main(): Promise<void> {
  pinSelf('1')
  const samples = new Map<string, Sample[]>(names.map((n) => [n, []]))
  for (let r = 1; r <= rounds; r++) {
    for (const n of names) {
      const s = await runOne(n)
      samples.get(n)!.push(s)
      process.stderr.write(
        `round ${r} ${n}: ${s.usPerUpdate.toFixed(1)} µs/update (main ${s.mainUsPerUpdate.toFixed(1)}), ${s.allocBytesPerUpdate?.toFixed(0)} B/update, GC pause µs/update ${JSON.stringify(s.gcUsPerUpdate)}, delivery ${s.ratio}, foreign ${s.foreign}, load ${loadavg()[0]!.toFixed(2)}\n`,
      )
    }
  }
  const full = median(samples.get('full')?.map((s) => s.usPerUpdate) ?? [NaN])
  // the targets are ratios to the reference server: each variant's, when it ran alongside
  const yws = median(samples.get('yws')?.map((s) => s.usPerUpdate) ?? [NaN])
  const rows = names.map((n) => {
    const ss = samples.get(n)!
    const us = median(ss.map((s) => s.usPerUpdate))
    const main = median(ss.map((s) => s.mainUsPerUpdate))
    const alloc = median(ss.map((s) => s.allocBytesPerUpdate ?? NaN))
    const runs = ss.map((s) => s.usPerUpdate.toFixed(1)).join(' / ')
    return `| ${n} | ${VARIANTS[n]!.what} | ${us.toFixed(1)} (${runs}) | ${main.toFixed(1)} | ${n === 'full' ? '' : (full - us).toFixed(1)} | ${alloc.toFixed(0)} | ${Number.isNaN(yws) ? '' : (us / yws).toFixed(2)} | ${Math.min(...ss.map((s) => s.ratio ?? 0))} |`
  })
  process.stdout.write(
    [
      `rooms ${size.rooms} x ${size.clientsPerRoom}, ${size.rate}/s, ${size.durationSec} s, ${rounds} rounds interleaved; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
      '',
      '| variant | taken away | server CPU µs / update, median (runs) | main thread µs / update | full − variant µs | V8 bytes allocated / update | / yws | min delivery ratio |',
      '|---|---|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
    ].join('\n'),
  )
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`ablate: ${err instanceof Error ? err.stack : String(err)}\n`)
    process.exit(1)
  },
)
