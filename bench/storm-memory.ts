// `node --import tsx bench/storm-memory.ts [--peer tandem] [--rooms 200 --clients 2000 --doc-kb 1024 --concurrency
// 100]`
// Where a connect storm's peak memory comes from, for one server: the storm scenario's two phases
// (seeding the rooms, then the connect storm) with the server's own memory figures sampled every
// 250 ms by a preloaded probe (bench/peers/mem-probe.mjs: RSS and its peak, V8 heap used/total,
// external and array buffers). Prints, per phase, the peak RSS and what made it up at that moment;
// RSS - V8 heap total - external is what neither V8 nor Node's buffers account for (malloc
// arenas, LevelDB, uWS). Set MALLOC_ARENA_MAX etc. in the environment to try allocator settings.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { list, log, num, parseFlags } from './lib/args.js'
import { LoadClient } from '../src/loadtest/client.js'
import { pool } from '../src/loadtest/pool.js'
import { pinSelf } from './lib/host.js'
import { cpuSeconds } from './lib/proc.js'
import { Samples } from '../src/loadtest/stats.js'
import { ROOT, buildTandem, startPeer, type PeerName } from './lib/peers.js'
import { markerText, seedUpdate } from './lib/seed.js'
import { seedRooms } from './scenarios/seeding.js'
import { sleep } from './scenarios/traffic.js'

interface Sample {
  t: number
  rss: number
  hwm: number
  heapTotal: number
  heapUsed: number
  external: number
  arrayBuffers: number
}

const MB = 1024 * 1024

/** minor page faults of the process so far (field 10 of /proc/PID/stat) */
function minflt(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7])
}
const mb = (n: number): string => (n / MB).toFixed(0)

async function main(argv: string[]): Promise<void> {
  const flags = parseFlags(argv)
  const peerName = (flags.get('peer') ?? 'tandem') as PeerName
  const rooms = num(flags, 'rooms') ?? 200
  const clients = num(flags, 'clients') ?? 2000
  const docKB = num(flags, 'doc-kb') ?? 1024
  const concurrency = num(flags, 'concurrency') ?? 100
  const holdSec = num(flags, 'hold') ?? 3
  const nodeArgs = list(flags, 'server-node-args') ?? []
  const dir = mkdtempSync(join(tmpdir(), 'tandem-storm-mem-'))
  const probe = join(dir, 'probe.jsonl')
  process.env.TANDEM_MEM_PROBE = probe
  pinSelf('1')
  const entry = peerName.startsWith('tandem') ? await buildTandem(log) : undefined
  const peer = await startPeer(peerName, {
    dataDir: join(dir, 'data'),
    persistent: false,
    cpus: '0',
    ...(entry ? { tandemEntry: entry } : {}),
    nodeArgs: ['--import', join(ROOT, 'bench/peers/mem-probe.mjs'), ...nodeArgs],
    log: (l) => process.stderr.write(`[server] ${l}\n`),
  })
  const marks: [string, number][] = [['started', Date.now()]]
  try {
    await sleep(1000)
    const seed = seedUpdate(docKB * 1024)
    const docs = Array.from({ length: rooms }, (_, r) => `storm-${r}`)
    marks.push(['seeding', Date.now()])
    const seeded = await seedRooms(peer, docs, seed, 20, true, { progress: log })
    marks.push(['seeded', Date.now()])
    await sleep(1000)
    const cs: LoadClient[] = []
    for (let i = 0; i < clients; i++) {
      const doc = docs[i % rooms]!
      cs.push(
        new LoadClient(i, await peer.target('bench', doc, `u${i}`), {
          marker: Buffer.from(markerText(doc)),
          connectTimeoutMs: 120_000,
        }),
      )
    }
    marks.push(['storm', Date.now()])
    const cpu0 = cpuSeconds(peer.pid)
    const flt0 = minflt(peer.pid)
    const res = await pool(cs, concurrency, (c) => c.connect())
    const cpu = cpuSeconds(peer.pid) - cpu0
    marks.push(['synced', Date.now()])
    const failed = res.filter((r) => r.status === 'rejected').length
    const sync = new Samples()
    for (const c of cs) if (c.syncedAt) sync.add(c.syncedAt - c.startedAt)
    const s = sync.summary()
    const ok = clients - failed
    log(
      `minflt ${minflt(peer.pid) - flt0} storm: ${ok}/${clients} synced in ${((marks.at(-1)![1] - marks.at(-2)![1]) / 1000).toFixed(1)} s, sync p50 ${s.p50} ms p99 ${s.p99} ms, server CPU ${((cpu * 1000) / ok).toFixed(2)} ms per connection`,
    )
    await sleep(holdSec * 1000)
    marks.push(['closing', Date.now()])
    await pool([...cs, ...seeded.writers], 500, (c) => c.close())
    await sleep(1500)
    marks.push(['end', Date.now()])
  } finally {
    await peer.stop()
  }
  const samples = readFileSync(probe, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Sample)
  rmSync(dir, { recursive: true, force: true })
  report(peerName, samples, marks)
}

function report(peer: string, samples: Sample[], marks: [string, number][]): void {
  const row = (s: Sample): string =>
    `rss ${mb(s.rss)}  heapTotal ${mb(s.heapTotal)} (used ${mb(s.heapUsed)})  external ${mb(s.external)} (arrayBuffers ${mb(s.arrayBuffers)})  other ${mb(s.rss - s.heapTotal - s.external)}`
  log(`${peer}: memory by phase (MB; other = RSS - V8 heap total - external)`)
  for (let i = 0; i + 1 < marks.length; i++) {
    const [name, from] = marks[i]!
    const to = marks[i + 1]![1]
    const inPhase = samples.filter((s) => s.t >= from && s.t < to)
    if (!inPhase.length) continue
    const peak = inPhase.reduce((a, b) => (b.rss > a.rss ? b : a))
    const last = inPhase.at(-1)!
    log(`  ${name.padEnd(8)} ${((to - from) / 1000).toFixed(1).padStart(5)} s  peak: ${row(peak)}`)
    log(`  ${''.padEnd(8)} ${''.padStart(5)}    end:  ${row(last)}`)
  }
  log(`  VmHWM ${mb(samples.at(-1)!.hwm)} MB`)
  if (process.env.STORM_MEMORY_TIMELINE)
    for (const s of samples) log(`  +${((s.t - marks[0]![1]) / 1000).toFixed(2)} s ${row(s)}`)
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
