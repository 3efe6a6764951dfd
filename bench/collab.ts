// `npm run bench:collab [-- --clients 200 --rooms 10 --rate 2 --duration 10]`
// Issue 2's first bench: N clients over M rooms, each sending small updates at a set rate through the
// raw protocol client, against Tandem alone (persistence on). Reports delivered updates/s, fan-out
// latency p50/p99, server CPU and RSS per connection; JSON under bench/results/local/ (--save: bench/results/).
import { mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { log, num, parseFlags } from './lib/args.js'
import { resultsDir } from './lib/results.js'
import { openFileLimit, pinSelf, stamp } from './lib/host.js'
import { ROOT, buildTandem, peerVersion, startPeer, type RunningPeer } from './lib/peers.js'
import { machineFacts } from './lib/proc.js'
import { runTraffic, type TrafficSize } from './scenarios/traffic.js'

const USAGE = `usage: npm run bench:collab -- [--clients N] [--rooms M] [--rate R] [--duration S]
  --clients N      total clients, spread evenly over the rooms (default 200)
  --rooms M        rooms (default 10)
  --rate R         updates per second per client (default 2)
  --duration S     seconds of sending (default 10)
  --no-pin         no taskset pinning (default: server CPU 0, load generator CPU 1)
  --no-build       run bin/tandem.js through tsx instead of the compiled sources
  --save           write to bench/results/ (tracked) instead of bench/results/local/
  --out DIR        results directory (instead of either)
`

async function main(argv: string[]): Promise<number> {
  const flags = parseFlags(argv)
  if (flags.has('help')) {
    process.stdout.write(USAGE)
    return 0
  }
  const clients = num(flags, 'clients') ?? 200
  const rooms = Math.max(1, num(flags, 'rooms') ?? 10)
  const size: TrafficSize = {
    rooms,
    clientsPerRoom: Math.max(2, Math.round(clients / rooms)),
    rate: num(flags, 'rate') ?? 2,
    awarenessHz: 0,
    durationSec: num(flags, 'duration') ?? 10,
    drainSec: 5,
    connectConcurrency: 50,
  }
  const machine = machineFacts()
  const pin = !flags.has('no-pin')
  const pinned = pin && pinSelf('1')
  const nofile = openFileLimit()
  if (nofile < size.rooms * size.clientsPerRoom + 500)
    log(`warning: ulimit -n is ${nofile}; raise it for this many clients`)
  const entry = flags.has('no-build') ? join(ROOT, 'bin/tandem.js') : await buildTandem(log)
  const out = resultsDir(flags)
  const dataDir = mkdtempSync(join(tmpdir(), 'tandem-bench-collab-'))
  const startedAt = new Date()
  let peer: RunningPeer | null = null
  process.once('exit', () => peer?.killNow())
  try {
    peer = await startPeer('tandem', {
      dataDir,
      persistent: true,
      cpus: pinned ? '0' : null,
      tandemEntry: entry,
      log: (l) => log(`[tandem] ${l}`),
    })
    log(
      `collab bench: ${size.rooms * size.clientsPerRoom} clients over ${size.rooms} rooms, ${size.rate} updates/s each, ${size.durationSec} s`,
    )
    const res = await runTraffic('collab', peer, size, { progress: (l) => log(`  ${l}`) })
    const m = res.metrics
    const result = {
      scenario: 'collab',
      startedAt: startedAt.toISOString(),
      command: `npm run bench:collab${argv.length ? ' -- ' + argv.join(' ') : ''}`,
      machine,
      pinning: pinned ? 'server CPU 0, load generator CPU 1 (taskset)' : 'none',
      tandem: { version: peerVersion('tandem'), entry: entry.replace(ROOT, '') },
      size,
      summary: {
        deliveredPerSec: m.deliveredPerSec,
        deliveryRatio: m.deliveryRatio,
        latencyP50Ms: m.latencyP50Ms,
        latencyP99Ms: m.latencyP99Ms,
        serverCpuSec: m.serverCpuSec,
        serverCpuUsPerDelivery:
          typeof m.cpuSecPer1kDeliveries === 'number' ? Math.round(m.cpuSecPer1kDeliveries * 1e6) / 1000 : null,
        serverRssPerConnKB: m.rssPerConnKB,
        serverRssMB: m.serverRssMB,
      },
      metrics: m,
      notes: res.notes,
    }
    const file = join(out, `collab-${stamp(startedAt)}.json`)
    writeFileSync(file, JSON.stringify(result, null, 2))
    copyFileSync(file, join(out, 'collab-latest.json'))
    process.stdout.write(`${JSON.stringify(result.summary, null, 2)}\n`)
    for (const n of res.notes) log(`note: ${n}`)
    log(`results: ${file}`)
    return 0
  } finally {
    await peer?.stop().catch(() => undefined)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:collab: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`)
    process.exit(2)
  },
)
