// The servers under test, each started by the bench as its own process (pinned with taskset when
// asked), on 127.0.0.1 and a free port, and stopped by it. The same client code drives all three;
// only the URL, the framing and the token differ.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mintToken } from '../../src/auth/capability.js'
import { generateSigningJwk, keyRingFromJwks, loadKeyRing, type KeyRing } from '../../src/auth/keys/ring.js'
import { bundleServer } from '../../scripts/bundle.js'
import { startPostgres, type PgServer } from '../../test/helpers/postgres.js'
import type { Target } from '../../src/loadtest/client.js'
import { freePort } from '../../test/helpers/ports.js'

/**
 * `tandem-mem` is Tandem with `--doc-storage memory`: the same server without LevelDB, like the
 * peers. `tandem-pg` is Tandem with its documents on PostgreSQL (`--postgres-url`), a throwaway
 * server the bench starts with production durability, pinned to the server's CPUs. `tandem-ws` is
 * Tandem with `--transport ws`: the collab listener on the `ws` package and node:http, as every
 * Node without a loadable uWS binary runs it (`tandem` takes `auto`, uWS where it loads).
 */
export type PeerName =
  'tandem' | 'tandem-mem' | 'tandem-pg' | 'tandem-hp' | 'tandem-ws' | 'yws' | 'hocuspocus' | 'relay'
export const PEER_NAMES: readonly PeerName[] = [
  'tandem',
  'tandem-mem',
  'tandem-pg',
  'tandem-hp',
  'tandem-ws',
  'yws',
  'hocuspocus',
  'relay',
]

/**
 * Scenarios the `relay` (a bare uWS relay that parses nothing, bench/peers/uws-relay.mjs) runs in:
 * the floor of socket work under the traffic and idle scenarios. It keeps no document, so a sync
 * carries nothing and it has no place in storm or cold.
 */
export const RELAY_SCENARIOS: readonly string[] = ['fanout', 'rooms', 'presence', 'idle']

/** Scenarios `tandem-pg` runs in: traffic and cold (storm and idle do not touch storage much). */
export const TANDEM_PG_SCENARIOS: readonly string[] = ['fanout', 'rooms', 'presence', 'cold']

/**
 * Scenarios `tandem-ws` (Tandem on the ws transport) runs in: those that are socket work (not cold, a restart over
 * storage).
 */
export const TANDEM_WS_SCENARIOS: readonly string[] = ['fanout', 'rooms', 'presence', 'storm', 'idle']

/**
 * Scenarios `tandem-hp` (Tandem through the Hocuspocus framing at its root URL) runs in: traffic, beside `hocuspocus`.
 */
export const TANDEM_HP_SCENARIOS: readonly string[] = ['fanout', 'rooms']

let benchPg: Promise<PgServer> | null = null
let pgDatabases = 0

/** The bench's PostgreSQL, started on first use (one per bench run; a fresh database per server). */
function benchPostgres(cpus: string | null): Promise<PgServer> {
  return (benchPg ??= startPostgres({ durable: true, ...(cpus ? { cpus } : {}) }))
}

/** Stops the bench's PostgreSQL, if one was started. */
export async function stopBenchPostgres(): Promise<void> {
  const pg = benchPg
  benchPg = null
  await (await pg?.catch(() => null))?.close()
}

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export interface StartOptions {
  dataDir: string
  /** documents survive a restart (Tandem always persists; peers only when asked) */
  persistent: boolean
  /** taskset CPU list for the server, or null for no pinning */
  cpus: string | null
  /** Tandem entry script (bin/tandem.js, or a compiled main.js) */
  tandemEntry?: string
  log?: (line: string) => void
  /** extra node flags for the server process (e.g. --cpu-prof) */
  nodeArgs?: string[]
  /** extra environment for the server process (every peer) */
  env?: NodeJS.ProcessEnv
  /** extra `tandem serve` flags (Tandem only: limits a scenario needs raised) */
  tandemArgs?: string[]
}

export interface RunningPeer {
  readonly name: PeerName
  readonly version: string
  readonly pid: number
  readonly port: number
  /** where it keeps its documents (when it persists) */
  readonly dataDir: string
  target(org: string, doc: string, user: string): Promise<Target>
  /** Graceful stop (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>
  /** Stop and start again on the same data dir (cold-load scenario). */
  restart(): Promise<RunningPeer>
  /** SIGKILL now, synchronously: for the bench's own exit path, so no server outlives it. */
  killNow(): void
}

const killNow = (child: ChildProcess) => (): void => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
}

export function peerVersion(name: PeerName): string {
  const pkg = {
    tandem: 'package.json',
    'tandem-mem': 'package.json',
    'tandem-hp': 'package.json',
    'tandem-ws': 'package.json',
    'tandem-pg': 'package.json',
    yws: 'node_modules/y-websocket-server-legacy/package.json',
    hocuspocus: 'node_modules/@hocuspocus/server/package.json',
    relay: 'node_modules/uWebSockets.js/package.json',
  }[name]
  try {
    return (JSON.parse(readFileSync(join(ROOT, pkg), 'utf8')) as { version: string }).version
  } catch {
    return 'unknown'
  }
}

let tasksetOk: boolean | null = null
function hasTaskset(): boolean {
  if (tasksetOk === null) tasksetOk = ['/usr/bin/taskset', '/bin/taskset'].some((p) => existsSync(p))
  return tasksetOk
}

interface Spawned {
  child: ChildProcess
  match: RegExpExecArray
}

/** Starts `node args...` and waits for a stdout line matching `ready`. */
async function spawnNode(
  script: string[],
  env: NodeJS.ProcessEnv,
  opts: StartOptions,
  ready: RegExp,
): Promise<Spawned> {
  const { cpus, log } = opts
  const args = [...(opts.nodeArgs ?? []), ...script]
  const pinned = cpus !== null && hasTaskset()
  const cmd = pinned ? 'taskset' : process.execPath
  const argv = pinned ? ['-c', cpus, process.execPath, ...args] : args
  const child = spawn(cmd, argv, {
    cwd: ROOT,
    env: { ...process.env, ...opts.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000)
  })
  return new Promise<Spawned>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`server did not start within 60 s: ${args.join(' ')}\n${stderr}`))
    }, 60_000)
    const onData = (d: Buffer): void => {
      out += d.toString()
      const m = ready.exec(out)
      if (m) {
        clearTimeout(timer)
        // keep draining stdout so the server never blocks on a full pipe
        child.stdout!.off('data', onData)
        child.stdout!.on('data', (x: Buffer) => log?.(x.toString().trimEnd()))
        resolve({ child, match: m })
      }
      if (out.length > 100_000) out = out.slice(-10_000)
    }
    child.stdout!.on('data', onData)
    child.once('exit', (code, sig) => {
      clearTimeout(timer)
      reject(new Error(`server exited (${code ?? sig}) before it was ready: ${args.join(' ')}\n${stderr}`))
    })
  })
}

async function stopChild(child: ChildProcess, graceMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  await new Promise<void>((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), graceMs)
    child.once('exit', () => {
      clearTimeout(t)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

export async function startPeer(name: PeerName, opts: StartOptions): Promise<RunningPeer> {
  await mkdir(opts.dataDir, { recursive: true })
  switch (name) {
    case 'tandem':
      return startTandem(opts, 'tandem')
    case 'tandem-mem':
      return startTandem(opts, 'tandem-mem')
    case 'tandem-hp':
      return startTandem(opts, 'tandem-hp')
    case 'tandem-ws':
      return startTandem(opts, 'tandem-ws')
    case 'tandem-pg':
      return startTandem(
        {
          ...opts,
          postgresUrl: await (await benchPostgres(opts.cpus)).createDatabase(`bench_${process.pid}_${++pgDatabases}`),
        },
        'tandem-pg',
      )
    case 'yws':
      return startYws(opts)
    case 'hocuspocus':
      return startHocuspocus(opts)
    case 'relay':
      return startRelay(opts)
  }
}

async function startTandem(
  opts: StartOptions & { postgresUrl?: string },
  name: 'tandem' | 'tandem-mem' | 'tandem-pg' | 'tandem-hp' | 'tandem-ws',
): Promise<RunningPeer> {
  const entry = opts.tandemEntry ?? join(ROOT, 'bin/tandem.js')
  const args = [
    entry,
    'serve',
    '--data-dir',
    opts.dataDir,
    '--host',
    '127.0.0.1',
    '--collab-port',
    '0',
    '--api-port',
    '0',
  ]
  if (name === 'tandem-mem') args.push('--doc-storage', 'memory')
  if (name === 'tandem-ws') args.push('--transport', 'ws')
  // One load generator on 127.0.0.1 stands in for thousands of client addresses: no per-address limit.
  args.push('--upgrades-per-sec-per-ip', '0')
  if (opts.tandemArgs) args.push(...opts.tandemArgs)
  // glibc's arena count as the production image sets it (Dockerfile): without it each libuv pool
  // thread keeps its own arena of freed memory (~1 KB per socket in the idle scenario).
  const env: NodeJS.ProcessEnv = {
    TANDEM_LOG_LEVEL: process.env.TANDEM_LOG_LEVEL ?? 'warn',
    MALLOC_ARENA_MAX: opts.env?.MALLOC_ARENA_MAX ?? process.env.MALLOC_ARENA_MAX ?? '2',
  }
  let keys: KeyRing | undefined
  if (opts.postgresUrl) {
    // The URL is a secret: through the environment, not argv. Keys from a file the bench writes,
    // so it can sign wherever the server would otherwise keep them.
    env.TANDEM_POSTGRES_URL = opts.postgresUrl
    const keysFile = join(opts.dataDir, 'bench-signing-keys.json')
    if (!existsSync(keysFile))
      await writeFile(keysFile, JSON.stringify({ keys: [await generateSigningJwk()] }), { mode: 0o600 })
    env.TANDEM_SIGNING_KEYS = keysFile
    keys = await keyRingFromJwks((JSON.parse(readFileSync(keysFile, 'utf8')) as { keys: [] }).keys, keysFile)
  }
  const { child, match } = await spawnNode(args, env, opts, /collab listening on http:\/\/([^:\s]+):(\d+)/)
  const host = match[1]!
  const port = Number(match[2])
  // Signing keys are created in the data dir on first start; the bench signs with the same code.
  keys ??= await loadKeyRing(opts.dataDir, '')
  const ring = keys
  const target: RunningPeer['target'] = async (org, doc, user) => {
    const { token } = await mintToken(ring, { sub: user, org, doc, acc: 'rw', ttlSec: 3600 })
    // tandem-hp: the same server spoken to as Hocuspocus providers speak, at its root URL
    if (name === 'tandem-hp')
      return { url: `ws://${host}:${port}/`, dialect: 'hocuspocus', docName: `${org}/${doc}`, token }
    return { url: `ws://${host}:${port}/${org}/${doc}?yauth=${token}`, dialect: 'yws', docName: `${org}/${doc}`, token }
  }
  return runningPeer(name, opts.dataDir, child, port, target, () => startTandem(opts, name), peerVersion('tandem'))
}

/** A started server as the scenarios see it; `again` starts it anew on the same data dir. */
function runningPeer(
  name: PeerName,
  dataDir: string,
  child: ChildProcess,
  port: number,
  target: RunningPeer['target'],
  again: () => Promise<RunningPeer>,
  version = peerVersion(name),
): RunningPeer {
  return {
    name,
    version,
    pid: child.pid!,
    port,
    dataDir,
    target,
    stop: () => stopChild(child),
    killNow: killNow(child),
    async restart() {
      await stopChild(child)
      return again()
    },
  }
}

async function startYws(opts: StartOptions): Promise<RunningPeer> {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = { HOST: '127.0.0.1', PORT: String(port) }
  if (opts.persistent) env.YPERSISTENCE = opts.dataDir
  const { child } = await spawnNode(
    [join(ROOT, 'node_modules/y-websocket-server-legacy/bin/server.js')],
    env,
    opts,
    /running at/,
  )
  return runningPeer(
    'yws',
    opts.dataDir,
    child,
    port,
    async (org, doc) => ({
      url: `ws://127.0.0.1:${port}/${org}/${doc}`,
      dialect: 'yws',
      docName: `${org}/${doc}`,
      token: '',
    }),
    () => startYws(opts),
  )
}

async function startHocuspocus(opts: StartOptions): Promise<RunningPeer> {
  const args = [join(ROOT, 'bench/peers/hocuspocus.mjs'), '--port', '0']
  if (opts.persistent) args.push('--data-dir', opts.dataDir)
  const { child, match } = await spawnNode(args, {}, opts, /listening on http:\/\/127\.0\.0\.1:(\d+)/)
  const port = Number(match[1])
  const target: RunningPeer['target'] = async (org, doc, user) => ({
    url: `ws://127.0.0.1:${port}/`,
    dialect: 'hocuspocus',
    docName: `${org}/${doc}`,
    token: `bench-${user}`,
  })
  return runningPeer('hocuspocus', opts.dataDir, child, port, target, () => startHocuspocus(opts))
}

async function startRelay(opts: StartOptions): Promise<RunningPeer> {
  // tsx: the relay loads uWS through src/collab/listener/uws-build.ts
  const { child, match } = await spawnNode(
    ['--import', 'tsx', join(ROOT, 'bench/peers/uws-relay.mjs'), '--port', '0'],
    {},
    opts,
    /listening on http:\/\/127\.0\.0\.1:(\d+)/,
  )
  const port = Number(match[1])
  return runningPeer(
    'relay',
    opts.dataDir,
    child,
    port,
    async (org, doc) => ({
      url: `ws://127.0.0.1:${port}/${org}/${doc}`,
      dialect: 'yws',
      docName: `${org}/${doc}`,
      token: '',
    }),
    () => startRelay(opts),
  )
}

/**
 * Bundles Tandem into bench/.build/dist as the production image runs it (`npm run build`:
 * scripts/bundle.ts, no loader in the server process). Returns the bundle's entry, or bin/tandem.js
 * (tsx) when the bundle could not be built.
 */
export async function buildTandem(log: (l: string) => void): Promise<string> {
  try {
    return (await bundleServer(join(ROOT, 'bench/.build/dist'))).entry
  } catch (err) {
    log(`warning: could not bundle Tandem (${(err as Error).message}); running bin/tandem.js through tsx`)
    return join(ROOT, 'bin/tandem.js')
  }
}
