// `npm run bench [-- --scenario fanout,rooms --peers tandem,yws,hocuspocus --quick ...]`
// Runs each chosen scenario against each chosen server, back to back, each server fresh on its own
// data dir, pinned apart from this load generator; writes JSON, Markdown and SVG under bench/results/local/ (--save:
// bench/results/).
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { list, log, num, parseFlags } from './lib/args.js'
import { openFileLimit, pinSelf, stamp } from './lib/host.js'
import { resultsDir, saving } from './lib/results.js'
import { machineFacts } from './lib/proc.js'
import { loadUws } from '../src/collab/listener/uws-build.js'
import {
  PEER_NAMES,
  RELAY_SCENARIOS,
  ROOT,
  TANDEM_HP_SCENARIOS,
  TANDEM_PG_SCENARIOS,
  TANDEM_WS_SCENARIOS,
  buildTandem,
  peerVersion,
  startPeer,
  stopBenchPostgres,
  type PeerName,
  type RunningPeer,
} from './lib/peers.js'
import { markdown, svg, type BenchReport, type RunRecord } from './lib/report.js'
import {
  ALL_SCENARIOS,
  EXTRA_PEERS,
  EXTRA_SCENARIOS,
  SCENARIOS,
  needsPersistence,
  runScenario,
  sizeFor,
  startOptionsFor,
  type ScenarioName,
} from './scenarios/index.js'

const USAGE = `usage: npm run bench -- [options]
  --scenario a,b      ${SCENARIOS.join(',')} (default: all); or cluster (one node, one cluster node,
                      three behind docs/cluster/haproxy.cfg at 1x and 3x the rooms, three with clients
                      split; --setups picks; alone; --haproxy-config FILE
                      runs another config written for the same ports; --pin-nodes 0 puts the nodes
                      on CPU 0 and the load, PostgreSQL, Redis and HAProxy on --pin-rest, default 1;
                      --warmup S seconds of load before the window, default 5; --rounds N repeats
                      the set-ups, order reversed every other round: ratios pooled over the rounds)
                      named only (issue 24): memory (KB per loaded document), large (a 50 MB
                      document's first load and sync); tandem, yws and hocuspocus only
  --peers a,b         ${PEER_NAMES.join(',')} (default: all; alias: yws = y-websocket reference server)
  --quick             small sizes, for a first look (minutes -> seconds)
  --duration S        traffic scenarios: seconds of sending
  --warmup S          traffic scenarios: seconds of the same traffic before the window, not measured
                      (the figures of a server past its JIT warm-up; default 0)
  --rooms N --clients-per-room N --rate R --awareness-hz H
  --observers N --active A --renew S --writers W   presence: one room of N, A cursors at --awareness-hz,
                      the rest renewing every S s (0: none), W writers at --rate
  --clients N         storm: total clients; idle: connections
  --docs N --doc-kb K --concurrency N --hold S
  --rounds N          cluster: see above; memory: repeat the three loads N times, each in a fresh process (medians)
  --doc-mb M --batch-kb K --timeout S   large: document size, written message size, sync timeout
  --edit-every N      large: one edit per N 4 KB appends (default 8; lower = more items)
  --apply 1           large: the fresh client applies the document to a Y.Doc before it counts as synced
  --repeat N          run everything N times (round robin) and report, per scenario and peer, the run
                      whose server core had the least load from other processes (default 1)
  --server-cpus L     taskset CPU list for the server (default 0)
  --client-cpus L     taskset CPU list for this load generator (default 1)
  --no-pin            no taskset pinning
  --tandem-entry F    Tandem script to run (default: the bundle built into bench/.build/dist)
  --no-build          run bin/tandem.js (through tsx) instead of compiling
  --server-node-args A  extra node flags for every server, comma separated (e.g. --cpu-prof)
  --save              write to bench/results/ (tracked); without it runs go to bench/results/local/
                      (ignored by git)
  --out DIR           results directory (instead of either)
  --latest            also write latest.{json,md,svg} (done anyway for a full default run); with
                      --scenario memory or large alone: memory-latest.*, large-latest.*
`

/** Per scenario and peer, the successful run with the least foreign load on the server core. */
function pickQuietest(all: RunRecord[]): RunRecord[] {
  const out: RunRecord[] = []
  for (const r of all) {
    const i = out.findIndex((o) => o.scenario === r.scenario && o.peer === r.peer)
    if (i < 0) {
      out.push(r)
      continue
    }
    const cur = out[i]!
    const load = (x: RunRecord): number =>
      typeof x.metrics.foreignLoadServerCore === 'number' ? x.metrics.foreignLoadServerCore : Infinity
    if ((cur.error && !r.error) || (!r.error && load(r) < load(cur))) out[i] = r
  }
  return out
}

/** "0", "0,2", "0-1" -> core numbers. */
function parseCpuList(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number)
    if (b === undefined) return [a!]
    return Array.from({ length: b - a! + 1 }, (_, i) => a! + i)
  })
}

/** Copies the latest tables into bench/README.md between its latest:start/end markers. */
function updateReadme(md: string): void {
  const path = join(ROOT, 'bench/README.md')
  let readme: string
  try {
    readme = readFileSync(path, 'utf8')
  } catch {
    return
  }
  const start = '<!-- latest:start -->'
  const end = '<!-- latest:end -->'
  const i = readme.indexOf(start)
  const j = readme.indexOf(end)
  if (i < 0 || j < i) return
  // Demote the report's headings by two levels so they nest under the README's section.
  const body = md.replace(/^(#+) /gm, '##$1 ')
  writeFileSync(path, `${readme.slice(0, i + start.length)}\n${body}\n${readme.slice(j)}`)
}

async function main(argv: string[]): Promise<number> {
  const flags = parseFlags(argv)
  if (flags.has('help')) {
    process.stdout.write(USAGE)
    return 0
  }
  if ((list(flags, 'scenario') ?? list(flags, 'scenarios'))?.includes('cluster')) {
    // Three cluster nodes vs one (real processes, PostgreSQL, redis-server): its own runner.
    const { cpuRatio, formatRatio, runClusterBench } = await import('./cluster.js')
    const results = await runClusterBench(flags)
    const file = join(resultsDir(flags), `${stamp(new Date())}-cluster.json`)
    const ratio = cpuRatio(results)
    const capacity = cpuRatio(results, 'haproxy 3x', 'cluster node')
    const lowLoad = cpuRatio(results, 'haproxy', 'cluster node')
    writeFileSync(
      file,
      JSON.stringify(
        {
          machine: machineFacts(),
          loadavg: loadavg(),
          results,
          cpuRatio: ratio,
          capacityRatio: capacity,
          lowLoadRatio: lowLoad,
        },
        null,
        2,
      ),
    )
    const rows = results.map(
      (r) =>
        `| ${r.setup} | ${r.round} | ${r.latencyMs.p50} | ${r.latencyMs.p99} | ${r.crossNodeLatencyMs?.p99 ?? '-'} | ${r.deliveryRatio} | ${r.cpuMsPerDelivery} | ${r.haproxyCpuMsPerDelivery ?? '-'} | ${r.delivered} | ${r.roomsLoaded.join('/')} | ${r.idleCpuMsPerNodeS} (${r.idleWakeupsPerNodeS}/s) | ${r.busOutPerDelivery} | ${r.busInPerDelivery} | ${r.pgTransactionsPerDelivery} | ${r.redisCommandsPerDelivery} | ${r.cycles} | ${r.pgTransactionsPerCycle} | ${r.redisCommandsPerCycle} |`,
    )
    process.stdout.write(
      [
        "| setup | round | p50 ms | p99 ms | cross-node p99 ms | delivery ratio | nodes' CPU ms per delivery | HAProxy CPU ms per delivery | deliveries | rooms loaded per node | idle CPU ms/s per node (wakeups/s) | bus publishes per delivery | bus messages received per delivery | PostgreSQL transactions per delivery | Redis commands per delivery (script-internal included) | write cycles | PostgreSQL transactions per cycle | Redis commands per cycle |",
        '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
        ...rows,
        '',
        `capacity: CPU per delivery, haproxy 3x / cluster node: ${formatRatio(capacity)} (target at most 1.1); at one load, haproxy / cluster node: ${formatRatio(lowLoad)}`,
        `CPU per delivery, haproxy / one node (embedded-style, no Redis): ${formatRatio(ratio)}; load average ${loadavg()
          .map((x) => x.toFixed(2))
          .join(' ')}`,
        `written: ${file}`,
        '',
      ].join('\n'),
    )
    return 0
  }
  const scenarios = (list(flags, 'scenario') ?? list(flags, 'scenarios') ?? [...SCENARIOS]) as ScenarioName[]
  for (const s of scenarios)
    if (!ALL_SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s}; known: ${ALL_SCENARIOS.join(', ')}`)
  const extraOnly = scenarios.every((s) => (EXTRA_SCENARIOS as readonly string[]).includes(s))
  const peers = (list(flags, 'peers') ?? [...PEER_NAMES]).map((p) => (p === 'y-websocket' ? 'yws' : p)) as PeerName[]
  for (const p of peers)
    if (!PEER_NAMES.includes(p)) throw new Error(`unknown peer ${p}; known: ${PEER_NAMES.join(', ')}`)
  const out = resultsDir(flags)

  const notes: string[] = []
  const machine = machineFacts() // before pinning: nproc counts the CPUs this process may use
  const pin = !flags.has('no-pin')
  const serverCpus = pin ? (flags.get('server-cpus') ?? '0') : null
  const clientCpus = flags.get('client-cpus') ?? '1'
  const serverCores = serverCpus ? parseCpuList(serverCpus) : null
  let pinning = 'no CPU pinning'
  if (pin) {
    if (pinSelf(clientCpus))
      pinning = `server pinned to CPU ${serverCpus}, load generator to CPU ${clientCpus} (taskset)`
    else notes.push('taskset failed: server and load generator share all cores')
  }
  const nofile = openFileLimit()
  const needFds = scenarios.reduce((m, s) => {
    const z = sizeFor(s, flags) as unknown as Record<string, number>
    return Math.max(m, z.connections ?? z.clients ?? z.observers ?? z.docs ?? (z.rooms ?? 1) * (z.clientsPerRoom ?? 1))
  }, 0)
  if (nofile < needFds + 500) {
    notes.push(
      `ulimit -n is ${nofile}, below the ${needFds + 500} this run needs: raise it (ulimit -n 65536) before npm run bench`,
    )
    log(`warning: ${notes[notes.length - 1]}`)
  }
  if (flags.has('quick')) notes.push('--quick sizes: a first look, not the named scenario sizes')
  notes.push(
    'Peers keep documents in memory except in the cold scenario (their own persistence). `tandem` persists to LevelDB in every scenario; `tandem-mem` is the same server with --doc-storage memory (not run in cold).',
  )
  if (scenarios.some((s) => (EXTRA_SCENARIOS as readonly string[]).includes(s))) {
    notes.push(
      'memory and large: tandem, yws and hocuspocus only, each with its own persistence (Tandem: LevelDB in its data dir; the reference server: y-leveldb via YPERSISTENCE; Hocuspocus: @hocuspocus/extension-database, one file per document), documents written through the socket, then the server restarted; every server runs with --expose-gc and bench/peers/gc-probe.mjs (a GC on SIGUSR2 before RSS is read) and MALLOC_ARENA_MAX=2.',
    )
  }
  if (peers.includes('tandem-pg')) {
    notes.push(
      `\`tandem-pg\` keeps documents in a PostgreSQL the bench starts (fsync and synchronous_commit on, pinned to the server's CPUs, so it shares them with Tandem); run in ${TANDEM_PG_SCENARIOS.join(', ')} only.`,
    )
  }

  if (peers.includes('tandem-ws')) {
    const uws = loadUws()
    notes.push(
      `\`tandem-ws\` is the same server with --transport ws (the \`ws\` package on node:http, what every Node without a loadable uWS binary runs); \`tandem\` takes auto: ${'native' in uws ? `uWS here (${uws.build})` : `ws here too, no uWS build loads (${uws.missing})`}; run in ${TANDEM_WS_SCENARIOS.join(', ')} only.`,
    )
  }

  if (peers.includes('relay')) {
    notes.push(
      `\`relay\` is not a Yjs server: a bare uWS relay that parses nothing (bench/peers/uws-relay.mjs), the floor of socket work; run in ${RELAY_SCENARIOS.join(', ')} only.`,
    )
  }

  let tandemEntry = flags.get('tandem-entry') ?? join(ROOT, 'bin/tandem.js')
  if (peers.some((p) => p.startsWith('tandem')) && !flags.has('tandem-entry') && !flags.has('no-build')) {
    log('bundling Tandem into bench/.build/dist (as the production image runs it)')
    tandemEntry = await buildTandem(log)
  }
  const startedAt = new Date()
  // The issue-24 scenarios write under their own names (<stamp>-memory.*) beside the default runs.
  const base = join(out, extraOnly ? `${stamp(startedAt)}-${scenarios.join('-')}` : stamp(startedAt))
  const report: BenchReport = {
    meta: {
      startedAt: startedAt.toISOString(),
      finishedAt: '',
      command: `npm run bench${argv.length ? ' -- ' + argv.join(' ') : ''}`,
      machine,
      pinning,
      tandemEntry: tandemEntry.replace(ROOT, ''),
      notes,
    },
    runs: [],
  }
  log(
    `bench: scenarios ${scenarios.join(', ')}; peers ${peers.map((p) => `${p} ${peerVersion(p)}`).join(', ')}; ${pinning}`,
  )

  let current: RunningPeer | null = null
  let interrupted = false
  process.once('exit', () => current?.killNow())
  process.once('SIGINT', () => {
    interrupted = true
    log('interrupted: stopping the server under test')
    void Promise.allSettled([current?.stop()])
      .then(() => stopBenchPostgres())
      .finally(() => process.exit(130))
  })

  const repeats = Math.max(1, Math.floor(num(flags, 'repeat') ?? 1))
  if (repeats > 1)
    notes.push(
      `Everything ran ${repeats} times, round robin; each row is the run whose server core had the least load from other processes (all runs are in the JSON).`,
    )
  const all: RunRecord[] = []
  for (let rep = 1; rep <= repeats; rep++)
    for (const scenario of scenarios) {
      const size = sizeFor(scenario, flags)
      for (const peerName of peers) {
        if (interrupted) break
        if (peerName === 'tandem-mem' && needsPersistence(scenario)) continue // nothing survives its restart
        if (peerName === 'tandem-pg' && !TANDEM_PG_SCENARIOS.includes(scenario)) continue
        if (peerName === 'relay' && !RELAY_SCENARIOS.includes(scenario)) continue
        if (peerName === 'tandem-hp' && !TANDEM_HP_SCENARIOS.includes(scenario)) continue
        if (peerName === 'tandem-ws' && !TANDEM_WS_SCENARIOS.includes(scenario)) continue
        if ((EXTRA_SCENARIOS as readonly string[]).includes(scenario) && !EXTRA_PEERS.includes(peerName)) continue
        const dataDir = mkdtempSync(join(tmpdir(), `tandem-bench-${peerName}-`))
        const t0 = Date.now()
        const rec: RunRecord = {
          scenario,
          peer: peerName,
          version: peerVersion(peerName),
          size,
          metrics: {},
          notes: [],
          startedAt: new Date().toISOString(),
          durationSec: 0,
        }
        if (repeats > 1) rec.repeat = rep
        log(`== ${scenario} / ${peerName} ${rec.version}${repeats > 1 ? ` (run ${rep}/${repeats})` : ''}`)
        try {
          const extra = startOptionsFor(scenario, size)
          current = await startPeer(peerName, {
            ...extra,
            dataDir,
            persistent: peerName === 'tandem' || peerName === 'tandem-pg' || needsPersistence(scenario),
            cpus: serverCpus,
            tandemEntry,
            nodeArgs: [
              ...(extra.nodeArgs ?? []),
              ...(list(flags, 'server-node-args')?.flatMap((a) => a.split(' ')) ?? []),
            ],
            log: (l) => log(`  [${peerName}] ${l.slice(0, 300)}`),
          })
          const limitMs = 15 * 60_000
          let timer: NodeJS.Timeout | undefined
          const res = await Promise.race([
            runScenario(scenario, current, size, { progress: (l) => log(`  ${l}`), serverCores }),
            new Promise<never>((_, rej) => {
              timer = setTimeout(() => rej(new Error(`run exceeded ${limitMs / 60000} min`)), limitMs)
            }),
          ]).finally(() => clearTimeout(timer))
          current = res.peer
          rec.metrics = res.metrics
          rec.notes = res.notes
          log(`  ${JSON.stringify(res.metrics)}`)
          for (const n of res.notes) log(`  note: ${n}`)
        } catch (err) {
          rec.error = err instanceof Error ? err.message.split('\n')[0]! : String(err)
          log(`  failed: ${rec.error}`)
        } finally {
          await current?.stop().catch(() => undefined)
          current = null
          rmSync(dataDir, { recursive: true, force: true })
        }
        rec.durationSec = Math.round((Date.now() - t0) / 1000)
        // Other work on the machine shows here: with 2 cores, a load average well above 2 means noise.
        rec.metrics.machineLoadAvg1 = Math.round(loadavg()[0]! * 100) / 100
        all.push(rec)
        report.runs = pickQuietest(all)
        if (repeats > 1) report.allRuns = all
        writeFileSync(`${base}.json`, JSON.stringify(report, null, 2))
      }
    }
  await stopBenchPostgres()
  report.meta.finishedAt = new Date().toISOString()
  writeFileSync(`${base}.json`, JSON.stringify(report, null, 2))
  const md = markdown(report)
  writeFileSync(`${base}.md`, md)
  writeFileSync(`${base}.svg`, svg(report))
  const full =
    !flags.has('quick') &&
    scenarios.length === SCENARIOS.length &&
    peers.length === PEER_NAMES.length &&
    argv.every((a) => !a.startsWith('--') || ['--latest', '--repeat', '--save'].includes(a))
  if (extraOnly) {
    // --latest: memory-latest.{json,md}, large-latest.{json,md} (that scenario run alone).
    if (scenarios.length === 1 && flags.has('latest'))
      for (const ext of ['json', 'md']) copyFileSync(`${base}.${ext}`, join(out, `${scenarios[0]}-latest.${ext}`))
  } else if (full || flags.has('latest')) {
    for (const ext of ['json', 'md', 'svg']) copyFileSync(`${base}.${ext}`, join(out, `latest.${ext}`))
    if (saving(flags)) updateReadme(md)
  }
  process.stdout.write(`\n${md}\n`)
  log(`results: ${base}.{json,md,svg}`)
  return report.runs.some((r) => r.error) ? 1 : 0
}

main(process.argv.slice(2)).then(
  (code) => stopBenchPostgres().finally(() => process.exit(code)),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`)
    void stopBenchPostgres().finally(() => process.exit(2))
  },
)
