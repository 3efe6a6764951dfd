// HAProxy (Debian's /usr/sbin/haproxy) in front of N backends for tests: one frontend on a free port
// of 127.0.0.1, round robin or leastconn, WebSocket-capable (`timeout tunnel`), health-checked with
// GET /readyz when asked so a drained or dead node leaves the rotation. Or the shipped
// docs/cluster/haproxy.cfg itself, only its ports rewritten (startShippedHaproxy), run under a hard
// file-descriptor limit of 20,000 as on the hosts it must start on. The config lives in a temp dir;
// close() stops the process and removes it.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
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
  close(): Promise<void>
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
      ? ['  option httpchk', `  http-check send meth GET uri ${o.check} ver HTTP/1.1 hdr Host tandem`, '  http-check expect status 200', '  default-server inter 500ms fall 1 rise 1']
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
const SHIPPED_PORTS = { collab: 1230, api: 8080, nodes: [[1231, 8081], [1232, 8082], [1233, 8083]] as const }

export interface ShippedHaproxy extends Haproxy {
  /** the api frontend (the `port`/`url` of Haproxy are the collab one) */
  apiUrl: string
}

/**
 * docs/cluster/haproxy.cfg (or `file` written for the same ports) unchanged but for its ports: the
 * frontends on free ports, node i's collab and api ports as given (three nodes, as the file has).
 */
export async function startShippedHaproxy(nodes: readonly (readonly [collab: number, api: number])[], file = SHIPPED_CONFIG): Promise<ShippedHaproxy> {
  const [collab, api] = [await freePort(), await freePort()]
  const map = new Map<number, number>([[SHIPPED_PORTS.collab, collab], [SHIPPED_PORTS.api, api]])
  SHIPPED_PORTS.nodes.forEach(([c, a], i) => {
    map.set(c, nodes[i]![0])
    map.set(a, nodes[i]![1])
  })
  const text = await readFile(file, 'utf8')
  const config = text.replace(/(127\.0\.0\.1:|check port )(\d+)/g, (all, pre: string, p: string) => {
    const to = map.get(Number(p))
    if (to === undefined) throw new Error(`${file}: unexpected port ${p}`)
    return pre + to
  })
  const lb = await run(collab, config, 20_000)
  return { ...lb, apiUrl: `http://127.0.0.1:${api}` }
}

async function run(port: number, config: string, hardFdLimit?: number): Promise<Haproxy> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-haproxy-'))
  const file = join(dir, 'haproxy.cfg')
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
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM') // hard stop: closes every proxied connection
        await exit
      }
      await rm(dir, { recursive: true, force: true })
    },
  }
}
