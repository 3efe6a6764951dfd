// HAProxy (Debian's /usr/sbin/haproxy) in front of N backends for tests: one frontend on a free port
// of 127.0.0.1, round robin or leastconn, WebSocket-capable (`timeout tunnel`), health-checked with
// GET /readyz when asked so a drained or dead node leaves the rotation. Or the shipped
// docs/cluster/haproxy.cfg itself, only its ports rewritten (startShippedHaproxy), run under a hard
// file-descriptor limit of 20,000 as on the hosts it must start on. The config lives in a temp dir,
// with a stats socket added to its global section (serverStates, allChecked); close() stops the
// process and removes it.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, waitForPort } from './redis.js'

export const HAPROXY_BIN = existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy'

export interface HaproxyOptions {
  /** backend ports on 127.0.0.1 */
  backends: number[]
  balance?: 'roundrobin' | 'leastconn'
  /** health check path (e.g. /readyz); without it every backend is always in rotation */
  check?: string
}

export interface Haproxy {
  /** the haproxy process (CPU figures in bench/cluster.ts) */
  pid: number
  port: number
  url: string
  wsUrl: string
  config: string
  /** every server of every backend, as `show stat` reports it */
  serverStates(): Promise<ServerState[]>
  /**
   * Resolves once every server has passed a health check and is fully UP. HAProxy starts servers
   * UP before any check, and the first failed check takes one out at once (for rise x inter): load
   * sent before that point may be hashed over fewer nodes than the test thinks.
   */
  allChecked(timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

interface ServerState {
  backend: string
  server: string
  /** "UP" (fully up), "UP 1/2" (a check failed), "DOWN", "DOWN 1/2" (rising), "no check" */
  status: string
  /** the last check's result: L7OK, L4CON, L7STS, L4TOUT... (empty before the first) */
  check: string
  /** checks failed, and UP to DOWN transitions, since the start */
  checksFailed: number
  wentDown: number
}

function haproxyConfig(port: number, o: HaproxyOptions): string {
  const check = o.check ? ' check' : ''
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    // Once upgraded, a WebSocket is a tunnel: its idle limit is this, not client/server.
    '  timeout tunnel 1h',
    'frontend fe',
    `  bind 127.0.0.1:${port}`,
    '  default_backend nodes',
    'backend nodes',
    `  balance ${o.balance ?? 'roundrobin'}`,
    // HTTP/1.1 with a Host header: uWS does not answer HAProxy's default HTTP/1.0 check request,
    // which would mark every node down.
    ...(o.check
      ? [
          '  option httpchk',
          `  http-check send meth GET uri ${o.check} ver HTTP/1.1 hdr Host tandem`,
          '  http-check expect status 200',
          '  default-server inter 500ms fall 1 rise 1',
        ]
      : []),
    // A connection refused by a dead backend is retried once on another one.
    '  retries 2',
    '  option redispatch',
    ...o.backends.map((p, i) => `  server n${i + 1} 127.0.0.1:${p}${check}`),
    '',
  ].join('\n')
}

export async function startHaproxy(o: HaproxyOptions): Promise<Haproxy> {
  const port = await freePort()
  return run(port, haproxyConfig(port, o))
}

const SHIPPED_CONFIG = 'docs/cluster/haproxy.cfg'
/** The ports of docs/cluster/haproxy.cfg: the two frontends, then each node's collab and api. */
const SHIPPED_PORTS = {
  collab: 1230,
  api: 8080,
  nodes: [
    [1231, 8081],
    [1232, 8082],
    [1233, 8083],
  ] as const,
}

export interface ShippedHaproxy extends Haproxy {
  /** the api frontend (the `port`/`url` of Haproxy are the collab one) */
  apiUrl: string
}

/**
 * docs/cluster/haproxy.cfg (or `file` written for the same ports) unchanged but for its ports: the
 * frontends on free ports, node i's collab and api ports as given (three nodes, as the file has).
 */
export async function startShippedHaproxy(
  nodes: readonly (readonly [collab: number, api: number])[],
  file = SHIPPED_CONFIG,
): Promise<ShippedHaproxy> {
  const [collab, api] = [await freePort(), await freePort()]
  const map = new Map<number, number>([
    [SHIPPED_PORTS.collab, collab],
    [SHIPPED_PORTS.api, api],
  ])
  SHIPPED_PORTS.nodes.forEach(([c, a], i) => {
    map.set(c, nodes[i]![0])
    map.set(a, nodes[i]![1])
  })
  const text = await readFile(file, 'utf8')
  const config = text.replace(/(127\.0\.0\.1:|check port )(\d+)/g, (_all, pre: string, p: string) => {
    const to = map.get(Number(p))
    if (to === undefined) throw new Error(`${file}: unexpected port ${p}`)
    return pre + to
  })
  const lb = await run(collab, config, 20_000)
  return { ...lb, apiUrl: `http://127.0.0.1:${api}` }
}

/** `show stat` on the stats socket, one row per server (frontends and backend totals left out). */
function showStat(socket: string): Promise<ServerState[]> {
  return new Promise((resolve, reject) => {
    let csv = ''
    const c = connect(socket, () => c.end('show stat\n'))
    c.on('data', (d: Buffer) => (csv += d.toString()))
    c.once('error', reject)
    c.once('end', () => {
      const [header, ...rows] = csv
        .trim()
        .split('\n')
        .map((l) => l.split(','))
      const col = (name: string) => header!.indexOf(name === 'pxname' ? '# pxname' : name)
      const [px, sv, st, cs, cf, cd] = ['pxname', 'svname', 'status', 'check_status', 'chkfail', 'chkdown'].map(col)
      resolve(
        rows
          .filter((r) => r[sv!] !== 'FRONTEND' && r[sv!] !== 'BACKEND')
          .map((r) => ({
            backend: r[px!]!,
            server: r[sv!]!,
            status: r[st!]!,
            check: r[cs!]!,
            checksFailed: Number(r[cf!]),
            wentDown: Number(r[cd!]),
          })),
      )
    })
  })
}

async function run(port: number, text: string, hardFdLimit?: number): Promise<Haproxy> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-haproxy-'))
  const file = join(dir, 'haproxy.cfg')
  const socket = join(dir, 'stats.sock')
  const config = text.replace(/^global\n/m, `global\n  stats socket ${socket}\n`)
  await writeFile(file, config)
  let output = ''
  // -db: stay in the foreground, log to stderr; -W master-worker is not needed for one process.
  // prlimit lowers the hard limit of file descriptors (allowed without privileges).
  const [bin, args] = hardFdLimit
    ? ['prlimit', [`--nofile=${hardFdLimit}:${hardFdLimit}`, HAPROXY_BIN, '-db', '-f', file]]
    : [HAPROXY_BIN, ['-db', '-f', file]]
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)))
  child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)))
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await Promise.race([
    waitForPort(port),
    exit.then(() => {
      throw new Error(`haproxy exited at start (code ${child.exitCode}): ${output}`)
    }),
  ])
  return {
    pid: child.pid!,
    port,
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    config,
    serverStates: () => showStat(socket),
    async allChecked(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const states = await showStat(socket).catch(() => [])
        if (
          states.length &&
          states.every((s) => s.status === 'no check' || (s.status === 'UP' && /^L\dOK$/.test(s.check)))
        )
          return
        if (Date.now() > deadline)
          throw new Error(`haproxy: not every server checked UP after ${timeoutMs} ms: ${JSON.stringify(states)}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM') // hard stop: closes every proxied connection
        await exit
      }
      await rm(dir, { recursive: true, force: true })
    },
  }
}
