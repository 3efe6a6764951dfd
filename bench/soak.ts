// `npm run bench:soak [-- --duration-min 30 --sockets 200 --docs 50 --rate 1 --api-rps 20 ...]`
// The soak scenario (bench/scenarios/soak.ts) against one Tandem process started with --demo (its
// API key and database asset serve the API reads). Flags:
//   --duration-min M     minutes of load (default 30)
//   --warmup-min W       minutes excluded from the slope (default min(5, M/4))
//   --cooldown-min C     minutes after the load before the last sample (default 3)
//   --idle-min I         minutes of idle sampling before the load (default 3: start-up work is released
//                        ~2.5 min after start; the last idle sample is the baseline)
//   --grow               every update adds an entry (documents grow, deliveries are counted); default:
//                        each socket overwrites its own entry, so document size stays flat
//   --sample-sec S       seconds between samples (default 30)
//   --sockets N --docs D --rate R --api-rps Q    load (defaults 200, 50, 1 update/s/socket, 20 reads/s)
//   --malloc-arena-max N  MALLOC_ARENA_MAX for the server (default: unset, glibc's own)
//   --server-node-args A  extra node flags for the server, comma separated (e.g. --max-semi-space-size=16)
//   --server-args "..."   extra tandem serve flags, space separated
//   --no-build            run bin/tandem.js through tsx instead of the compiled sources
//   --save                write to bench/results/ (tracked) instead of bench/results/local/
//   --out DIR             results directory (instead of either)
// Writes soak-<stamp>.json and soak-latest.json to bench/results/local/ (--save: bench/results/). Bounded: the run
// stops itself at duration + cool-down + 10 minutes.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mintToken } from '../src/auth/capability.js'
import { loadKeyRing } from '../src/auth/keys/ring.js'
import { log, num, parseFlags } from './lib/args.js'
import { resultsDir } from './lib/results.js'
import { ROOT, buildTandem } from './lib/peers.js'
import { machineFacts } from './lib/proc.js'
import { runSoak, type SoakServer, type SoakSize } from './scenarios/soak.js'

interface Started {
  child: ChildProcess
  server: SoakServer
}

async function startServer(
  entry: string,
  dataDir: string,
  env: NodeJS.ProcessEnv,
  nodeArgs: string[],
  extra: string[],
): Promise<Started> {
  const args = [
    ...nodeArgs,
    entry,
    'serve',
    '--data-dir',
    dataDir,
    '--host',
    '127.0.0.1',
    '--collab-port',
    '0',
    '--api-port',
    '0',
    '--demo',
    '--upgrades-per-sec-per-ip',
    '0',
    ...extra,
  ]
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, TANDEM_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)))
  return new Promise<Started>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`tandem did not start within 120 s\n${err}`))
    }, 120_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`tandem exited (${code}) before it was ready\n${err}`))
    })
    child.stdout!.on('data', async (d: Buffer) => {
      out += d.toString()
      const collab = /collab listening on (http:\/\/\S+)/.exec(out)
      const api = /api listening on (http:\/\/\S+)/.exec(out)
      const key = /demo api key: (\S+)/.exec(out)
      const db = /demo asset: database (\S+)/.exec(out)
      if (!collab || !api || !key || !db || !out.includes('\n', db.index)) return
      clearTimeout(timer)
      child.stdout!.removeAllListeners('data')
      child.stdout!.resume()
      const keys = await loadKeyRing(dataDir, '')
      const wsBase = collab[1]!.replace(/^http/, 'ws')
      resolve({
        child,
        server: {
          pid: child.pid!,
          collabUrl: collab[1]!,
          apiUrl: api[1]!,
          apiKey: key[1]!,
          database: { id: db[1]!, tables: ['customers', 'orders'] },
          async target(doc, user) {
            const { token } = await mintToken(keys, { sub: user, org: 'soak', doc, acc: 'rw', ttlSec: 6 * 3600 })
            return { url: `${wsBase}/soak/${doc}?yauth=${token}`, dialect: 'yws', docName: `soak/${doc}`, token }
          },
        },
      })
    })
  })
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2))
  const durationMin = num(flags, 'duration-min') ?? 30
  const size: SoakSize = {
    durationSec: Math.round(durationMin * 60),
    warmupSec: Math.round((num(flags, 'warmup-min') ?? Math.min(5, durationMin / 4)) * 60),
    cooldownSec: Math.round((num(flags, 'cooldown-min') ?? 3) * 60),
    sampleSec: num(flags, 'sample-sec') ?? 30,
    sockets: num(flags, 'sockets') ?? 200,
    docs: num(flags, 'docs') ?? 50,
    rate: num(flags, 'rate') ?? 1,
    apiRps: num(flags, 'api-rps') ?? 20,
    idleSec: Math.round((num(flags, 'idle-min') ?? 3) * 60),
    grow: flags.has('grow'),
  }
  const env: NodeJS.ProcessEnv = {}
  const arenas = num(flags, 'malloc-arena-max')
  if (arenas !== undefined) env.MALLOC_ARENA_MAX = String(arenas)
  const nodeArgs = (flags.get('server-node-args') ?? '').split(',').filter(Boolean)
  const extra = (flags.get('server-args') ?? '').split(' ').filter(Boolean)
  const limitMs = (size.idleSec + size.durationSec + size.cooldownSec + 600) * 1000
  setTimeout(() => {
    log(`soak: aborted after ${limitMs / 1000} s`)
    process.exit(2)
  }, limitMs).unref()

  const entry = flags.has('no-build') ? join(ROOT, 'bin/tandem.js') : await buildTandem(log)
  const dataDir = mkdtempSync(join(tmpdir(), 'tandem-soak-'))
  log(
    `soak: ${size.sockets} sockets on ${size.docs} documents at ${size.rate} update/s each, ${size.apiRps} API reads/s, ${durationMin} min (+${size.cooldownSec / 60} min cool-down)` +
      (arenas !== undefined ? `, MALLOC_ARENA_MAX=${arenas}` : ''),
  )
  const { child, server } = await startServer(entry, dataDir, env, nodeArgs, extra)
  try {
    const result = await runSoak(server, size, (line) => log(`soak: ${line}`))
    const m = result.metrics
    log(
      `soak: RSS slope after warm-up ${m.rssSlopeMBPerMin} MiB/min (heap used ${m.heapUsedSlopeMBPerMin}, native ${m.nativeSlopeMBPerMin}); idle ${m.idleRssMB} MiB, peak under load ${m.peakLoadRssMB} MiB, after cool-down ${m.cooldownRssMB} MiB (${m.cooldownOverIdleMB} over idle)`,
    )
    for (const n of result.notes) log(`soak note: ${n}`)
    const out = resultsDir(flags)
    const stamp = new Date()
      .toISOString()
      .replace(/:/g, '-')
      .replace(/\.\d+Z$/, 'Z')
    const record = {
      bench: 'soak',
      at: new Date().toISOString(),
      machine: machineFacts(),
      size,
      env,
      nodeArgs,
      serverArgs: extra,
      ...result,
    }
    writeFileSync(join(out, `soak-${stamp}.json`), JSON.stringify(record, null, 2) + '\n')
    writeFileSync(join(out, 'soak-latest.json'), JSON.stringify(record, null, 2) + '\n')
  } finally {
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
