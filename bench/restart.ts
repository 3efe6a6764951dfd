// `node --import tsx bench/restart.ts [--peers tandem,yws,hocuspocus] [--rounds 10] [--docs 1000]
//   [--doc-kb 100] [--touch 200] [--entry dist/tandem.mjs] [--no-build] [--cpus 0] [--keep DIR]
//   [--server-node-args --cpu-prof,--cpu-prof-dir=DIR]`
// Restart time alone, repeated (the cold scenario measures it once per run, and a shared machine
// swings one figure by 2-10x). Each peer gets `docs` documents of `doc-kb` written once; then, for
// `rounds` rounds, peers interleaved: `touch` documents are opened whole (so the stop has loaded
// rooms, as in the cold scenario), the server is stopped (SIGTERM until exit) and started again
// (spawn until its ready line). Reports medians and ranges of stop, start and the new process's
// CPU time (utime + stime at its ready line, which other processes' load moves less than wall time).
// Writes restart-<stamp>.json and restart-latest.json to bench/results/local/ (--save: bench/results/).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { LoadClient } from '../src/loadtest/client.js'
import { pool } from '../src/loadtest/pool.js'
import { log, list, num, parseFlags } from './lib/args.js'
import { resultsDir } from './lib/results.js'
import { now } from '../src/loadtest/marks.js'
import { ROOT, buildTandem, startPeer, type PeerName, type RunningPeer } from './lib/peers.js'
import { cpuSeconds } from './lib/proc.js'
import { markerText, seedUpdate } from './lib/seed.js'
import { seedRooms } from './scenarios/seeding.js'

const LIMIT_MS = 15 * 60 * 1000

interface Round {
  stopMs: number
  startMs: number
  startCpuMs: number
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

function summary(xs: number[]): { median: number; min: number; max: number } {
  return { median: Math.round(median(xs)), min: Math.round(Math.min(...xs)), max: Math.round(Math.max(...xs)) }
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2))
  const peers = (list(flags, 'peers') ?? ['tandem']) as PeerName[]
  const rounds = num(flags, 'rounds') ?? 10
  const docs = num(flags, 'docs') ?? 1000
  const docKB = num(flags, 'doc-kb') ?? 100
  const touch = Math.min(num(flags, 'touch') ?? 200, docs)
  const cpus = flags.has('no-pin') ? null : (flags.get('cpus') ?? '0')
  const tandemEntry =
    flags.get('entry') ?? (flags.has('no-build') ? join(ROOT, 'bin/tandem.js') : await buildTandem(log))
  const deadline = setTimeout(() => {
    log(`restart bench passed ${LIMIT_MS / 60000} min: stopping`)
    for (const p of running.values()) p.killNow()
    process.exit(1)
  }, LIMIT_MS)
  deadline.unref()

  const base = flags.get('keep') ?? mkdtempSync(join(ROOT, 'bench/.restart-'))
  const running = new Map<PeerName, RunningPeer>()
  const results = new Map<PeerName, Round[]>()
  const seed = seedUpdate(docKB * 1024, 7)
  const names = Array.from({ length: docs }, (_, d) => `cold-${d}`)
  const ctx = { progress: log }
  try {
    for (const name of peers) {
      const dataDir = join(base, name)
      mkdirSync(dataDir, { recursive: true })
      const nodeArgs = list(flags, 'server-node-args') ?? []
      const peer = await startPeer(name, { dataDir, persistent: true, cpus, tandemEntry, nodeArgs })
      running.set(name, peer)
      log(`${name}: writing ${docs} documents of ${docKB} KB`)
      const seeded = await seedRooms(peer, names, seed, 20, false, ctx)
      if (seeded.failures) throw new Error(`${name}: ${seeded.failures} documents failed to seed`)
      results.set(name, [])
    }
    await new Promise((r) => setTimeout(r, 4000)) // debounced stores land, as in the cold scenario
    for (let round = 0; round < rounds; round++) {
      for (const name of peers) {
        const peer = running.get(name)!
        if (round > 0 && touch) await openWhole(peer, names.slice(0, touch))
        const t0 = now()
        await peer.stop()
        const t1 = now()
        const next = await peer.restart()
        const t2 = now()
        const startCpuMs = cpuSeconds(next.pid) * 1000
        running.set(name, next)
        const r = { stopMs: t1 - t0, startMs: t2 - t1, startCpuMs }
        results.get(name)!.push(r)
        log(
          `round ${round + 1}/${rounds} ${name}: stop ${r.stopMs.toFixed(0)} ms, start ${r.startMs.toFixed(0)} ms, start CPU ${startCpuMs.toFixed(0)} ms`,
        )
      }
    }
  } finally {
    for (const p of running.values()) await p.stop().catch(() => undefined)
    if (!flags.has('keep')) rmSync(base, { recursive: true, force: true })
  }

  const table = peers.map((name) => {
    const rs = results.get(name)!
    return {
      peer: name,
      stopMs: summary(rs.map((r) => r.stopMs)),
      startMs: summary(rs.map((r) => r.startMs)),
      restartMs: summary(rs.map((r) => r.stopMs + r.startMs)),
      startCpuMs: summary(rs.map((r) => r.startCpuMs)),
      rounds: rs,
    }
  })
  process.stdout.write(
    '\n| peer | restart ms (median, range) | stop ms | start ms | start CPU ms |\n|---|---:|---:|---:|---:|\n',
  )
  const fmt = (s: { median: number; min: number; max: number }) => `${s.median} (${s.min}–${s.max})`
  for (const row of table)
    process.stdout.write(
      `| ${row.peer} | ${fmt(row.restartMs)} | ${fmt(row.stopMs)} | ${fmt(row.startMs)} | ${fmt(row.startCpuMs)} |\n`,
    )
  const stamp = new Date()
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-')
  const out = resultsDir(flags)
  const json = JSON.stringify(
    { stamp, entry: tandemEntry, rounds, docs, docKB, touch, cpus, loadavg: loadavg(), table },
    null,
    2,
  )
  writeFileSync(join(out, `restart-${stamp}.json`), json)
  writeFileSync(join(out, 'restart-latest.json'), json)
}

/** Opens each document until its whole content arrived (50 at once), then closes the sockets. */
async function openWhole(peer: RunningPeer, docs: string[]): Promise<void> {
  const clients: LoadClient[] = []
  for (const [i, doc] of docs.entries()) {
    clients.push(
      new LoadClient(i, await peer.target('bench', doc, `u${i}`), {
        marker: Buffer.from(markerText(doc)),
        connectTimeoutMs: 60_000,
      }),
    )
  }
  const res = await pool(clients, 50, (c) => c.connect())
  await pool(clients, 500, (c) => c.close())
  const failed = res.filter((r) => r.status === 'rejected').length
  if (failed) throw new Error(`${peer.name}: ${failed} documents did not load whole`)
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exit(1)
  },
)
