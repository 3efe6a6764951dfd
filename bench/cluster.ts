// `npm run bench -- --scenario cluster [--duration S --rooms N --clients-per-room N --rate R
// --haproxy-config FILE --setups haproxy,split --idle S --warmup S --rounds N]`: real `tandem serve` processes over one
// PostgreSQL (and one redis-server for the cluster), three set-ups at the same load:
//   one node      every client on one node (the baseline);
//   haproxy       three nodes behind HAProxy running docs/cluster/haproxy.cfg (or FILE), every
//                 client through it: what a deployment gets from the shipped configuration;
//   split         three nodes, each room's clients spread round robin over them directly (what
//                 happens when affinity is lost: a node died, another balancer): cross-node latency;
//   cluster node  one node in cluster mode (Redis, store-assigned seqs, heartbeats): the capacity baseline;
//   haproxy 3x    three nodes behind HAProxy at three times the rooms: the capacity row (CPU per
//                 delivery against "cluster node"; target at most 1.1x, three nodes >= 2.7x one).
// Before the clients connect, the nodes' idle CPU is measured (ms per node per second), and after
// the run their bus messages are read from /metrics: publishes received per delivery.
// `--pin-nodes CPUS` (e.g. 0): the nodes on those CPUs, and this load generator, PostgreSQL,
// redis-server and HAProxy (started from here, so they inherit its affinity) on the others
// (`--pin-rest`, default 1): on two cores the nodes then compete with each other, not with the
// load they serve, and CPU per delivery compares set-ups rather than the machine's contention.
// Every client writes `rate` updates a second, stamped with its send time; every other client of
// the room counts the delivery. The load runs `--warmup` seconds (default 5) before the window, so
// JIT compilation and the first statements of a fresh schema fall outside it. `--rounds N` repeats
// the set-ups, in reverse order every other round so drift of the machine falls on both sides;
// ratios are then the median of the rounds' ratios, with their range. Reports delivery latency, the delivery ratio
// (nothing lost is 1) and the nodes' CPU per delivery; the target is haproxy at most 1.3x one node.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@redis/client'
import pg from 'pg'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken } from '../src/auth/capability.js'
import { startShippedHaproxy, type Haproxy } from '../test/helpers/haproxy.js'
import { startPostgres } from '../test/helpers/postgres.js'
import { freePort, startRedis } from '../test/helpers/redis.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../test/helpers/tandem-process.js'
import { list, log, num, type Flags } from './lib/args.js'
import { pinSelf } from './lib/host.js'
import { cpuSeconds } from './lib/proc.js'
import { Samples, round, type Summary } from '../src/loadtest/stats.js'

export type ClusterSetup = 'one node' | 'haproxy' | 'split' | 'cluster node' | 'haproxy 3x'

export interface ClusterResult {
  setup: ClusterSetup
  /** 1-based round (--rounds) */
  round: number
  nodes: number
  sent: number
  expected: number
  delivered: number
  deliveryRatio: number
  /** ms, send to receive, every delivery */
  latencyMs: Summary
  /** ms, deliveries whose writer and reader sit on different nodes (split only) */
  crossNodeLatencyMs: Summary | null
  serverCpuSeconds: number
  cpuMsPerDelivery: number
  /** HAProxy's own CPU per delivery (haproxy only), apart from the nodes' */
  haproxyCpuMsPerDelivery: number | null
  /** rooms loaded per node at the end of the run (affinity: the sum is the room count) */
  roomsLoaded: number[]
  /** ms of CPU per node per second, nodes started and nothing connected (--idle S, default 5) */
  idleCpuMsPerNodeS: number
  /** PostgreSQL transactions (each write cycle: one statement) per delivery, sending window and drain */
  pgTransactionsPerDelivery: number
  /**
   * write cycles the nodes ran (tandem_persist_seconds_count) over the same window, and the backends' work per cycle
   */
  cycles: number
  pgTransactionsPerCycle: number
  redisCommandsPerCycle: number
  /** Redis commands per delivery, and by command (INFO commandstats), over the same window */
  redisCommandsPerDelivery: number
  redisCommands: Record<string, number>
  /** the main thread's voluntary context switches per node per second at idle: how often it wakes */
  idleWakeupsPerNodeS: number
  /** bus update messages the nodes published / received from Redis (own echoes included), per delivery */
  busOutPerDelivery: number
  busInPerDelivery: number
}

/** Voluntary context switches of a process's main thread so far: each is a sleep, so roughly a wakeup. */
function wakeups(pid: number): number {
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
}

/**
 * What the backends did so far: PostgreSQL transactions committed or rolled back in the bench
 * database (a write cycle is one autocommit statement, so one transaction), and Redis commands by
 * name (INFO commandstats).
 */
async function backendCounts(
  pgUrl: string,
  redisUrl: string,
): Promise<{ pgXacts: number; redis: Record<string, number> }> {
  const client = new pg.Client({ connectionString: pgUrl })
  await client.connect()
  let pgXacts = 0
  try {
    await client.query('SELECT pg_stat_force_next_flush()').catch(() => undefined)
    const { rows } = await client.query<{ n: string }>(
      'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
    )
    pgXacts = Number(rows[0]?.n ?? 0)
  } finally {
    await client.end()
  }
  const r = createClient({ url: redisUrl })
  await r.connect()
  const redis: Record<string, number> = {}
  try {
    const info = String(await r.sendCommand(['INFO', 'commandstats']))
    for (const m of info.matchAll(/^cmdstat_([a-z|_-]+):calls=(\d+)/gm)) redis[m[1]!] = Number(m[2])
  } finally {
    r.destroy()
  }
  return { pgXacts, redis }
}

/** Per-command difference of two INFO commandstats readings, without the bench's own INFO. */
function redisDelta(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(b)) if (k !== 'info' && v - (a[k] ?? 0) > 0) out[k] = v - (a[k] ?? 0)
  return out
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function metricsOf(n: TandemProcess): Promise<string> {
  return (await fetch(`http://127.0.0.1:${n.apiPort}/metrics`)).text()
}

/** Write cycles a node ran so far (one per storage write: the persist histogram's count). */
function cyclesRun(text: string): number {
  return Number(/^tandem_persist_seconds_count (\d+)$/m.exec(text)?.[1] ?? 0)
}

function roomsLoaded(text: string): number {
  return Number(/^tandem_rooms_loaded (\d+)$/m.exec(text)?.[1] ?? NaN)
}

/** A counter's value for one label set ("" when absent: 0). */
function counter(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.split(',').every((kv) => l.includes(kv)))
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0
}

/**
 * Update messages a node read from its Redis subscription. `received` counts every one (a build
 * that has it); older builds count only other nodes' messages as `in` and read back each of their
 * own publishes too (every publisher followed the documents it published), so `in + out`.
 */
function busReceived(text: string): number {
  if (text.includes('tandem_bus_received_total')) return counter(text, 'tandem_bus_received_total', '')
  return (
    counter(text, 'tandem_bus_messages_total', 'direction="in",type="update"') +
    counter(text, 'tandem_bus_messages_total', 'direction="out",type="update"')
  )
}

export async function runClusterBench(flags: Flags): Promise<ClusterResult[]> {
  const durationS = num(flags, 'duration') ?? 10
  const rooms = num(flags, 'rooms') ?? 20
  const perRoom = num(flags, 'clients-per-room') ?? 5
  const rate = num(flags, 'rate') ?? 5 // updates per second per client
  const idleS = num(flags, 'idle') ?? 5 // seconds of idle CPU measured before the clients connect
  const warmupS = num(flags, 'warmup') ?? 5 // seconds of load before the measured window
  const rounds = Math.max(1, Math.floor(num(flags, 'rounds') ?? 1))
  const haproxyConfig = flags.get('haproxy-config') ?? undefined
  const pinNodes = flags.get('pin-nodes') ?? null
  if (pinNodes && !pinSelf(flags.get('pin-rest') ?? '1')) throw new Error('--pin-nodes: taskset failed')
  const dir = await mkdtemp(join(tmpdir(), 'tandem-bench-cluster-'))
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()])
  const { file, keys } = await sharedSigningKeys(dir)
  const results: ClusterResult[] = []
  try {
    const setups = (list(flags, 'setups') ?? [
      'one node',
      'cluster node',
      'haproxy',
      'haproxy 3x',
      'split',
    ]) as ClusterSetup[]
    const order = Array.from({ length: rounds }, (_, i) =>
      (i % 2 ? [...setups].reverse() : setups).map((setup) => ({ setup, round: i + 1 })),
    ).flat()
    for (const { setup, round: roundNo } of order) {
      const n = setup === 'one node' || setup === 'cluster node' ? 1 : 3
      const setupRooms = setup === 'haproxy 3x' ? rooms * 3 : rooms
      const schema = `bench_cluster_${setup.replace(' ', '_')}${rounds > 1 ? `_r${roundNo}` : ''}`
      const env = {
        TANDEM_POSTGRES_URL: pg.url,
        TANDEM_POSTGRES_SCHEMA: schema,
        TANDEM_SIGNING_KEYS: file,
        TANDEM_LOG_LEVEL: 'warn',
        TANDEM_TRUSTED_PROXIES: '127.0.0.1',
        ...(setup !== 'one node' ? { TANDEM_REDIS_URL: redis.url } : {}),
      }
      // One at a time and distinct: two concurrent probes can return the same free port.
      const taken = new Set<number>()
      const distinctPort = async (): Promise<number> => {
        for (;;) {
          const p = await freePort()
          if (!taken.has(p)) return (taken.add(p), p)
        }
      }
      const ports: (readonly [number, number])[] = []
      for (let i = 0; i < n; i++) ports.push([await distinctPort(), await distinctPort()] as const)
      const spawn = async (i: number) => {
        const node = await spawnTandem(
          [
            '--data-dir',
            join(dir, `${schema}-${i}`),
            '--collab-port',
            String(ports[i]![0]),
            '--api-port',
            String(ports[i]![1]),
          ],
          env,
        )
        if (pinNodes) execFileSync('taskset', ['-a', '-cp', pinNodes, String(node.child.pid)], { stdio: 'ignore' })
        return node
      }
      const nodes: TandemProcess[] = [await spawn(0)] // the first migrates
      nodes.push(...(await Promise.all(Array.from({ length: n - 1 }, (_, i) => spawn(i + 1)))))
      const idle0 = nodes.reduce((s, x) => s + cpuSeconds(x.child.pid!), 0)
      const wakes0 = nodes.reduce((s, x) => s + wakeups(x.child.pid!), 0)
      await sleep(idleS * 1000)
      const idleCpuMsPerNodeS = round(
        ((nodes.reduce((s, x) => s + cpuSeconds(x.child.pid!), 0) - idle0) * 1000) / idleS / n,
        2,
      )
      const idleWakeupsPerNodeS = round((nodes.reduce((s, x) => s + wakeups(x.child.pid!), 0) - wakes0) / idleS / n, 1)
      const lb: Haproxy | null = setup.startsWith('haproxy') ? await startShippedHaproxy(ports, haproxyConfig) : null
      if (lb) await sleep(2_500) // HAProxy's checks (rise 2, every 1 s) put the nodes in rotation
      log(
        `cluster bench: ${setup} (${n} node(s))${rounds > 1 ? `, round ${roundNo}/${rounds}` : ''}, ${setupRooms} rooms x ${perRoom} clients, ${rate} updates/s per client, ${warmupS} s warm-up + ${durationS} s`,
      )

      const providers: WebsocketProvider[] = []
      const clients: { doc: Y.Doc; node: number; id: string }[] = []
      const latency = new Samples()
      const crossLatency = new Samples()
      let delivered = 0
      let sent = 0
      let firstRound = Infinity // the first send round in the window: earlier ones are warm-up
      // Every y-websocket provider in Node adds a process 'exit' listener (its awareness goodbye).
      process.setMaxListeners(setupRooms * perRoom + 10)
      for (let r = 0; r < setupRooms; r++) {
        const doc = `room-${r}`
        const token = (await mintToken(keys, { org: 'bench', doc, sub: 'bench@x', acc: 'rw', ttlSec: 3600 })).token
        const nodeOf = new Map<string, number>()
        for (let k = 0; k < perRoom; k++) {
          const node = setup === 'split' ? (r + k) % n : 0
          const id = `c${k}`
          nodeOf.set(id, node)
          const ydoc = new Y.Doc()
          const url = lb ? lb.wsUrl : nodes[node]!.wsUrl
          providers.push(
            new WebsocketProvider(`${url}/bench`, doc, ydoc, {
              params: { yauth: token },
              WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
              disableBc: true,
            }),
          )
          clients.push({ doc: ydoc, node, id })
          ydoc.getMap<number>('m').observe((e) => {
            if (e.transaction.local) return
            const now = performance.now() + performance.timeOrigin
            for (const key of e.keysChanged) {
              const sentAt = ydoc.getMap<number>('m').get(key)
              if (typeof sentAt !== 'number' || Number(key.slice(key.indexOf(':') + 1)) < firstRound) continue
              latency.add(now - sentAt)
              if (setup === 'split' && nodeOf.get(key.slice(0, key.indexOf(':'))) !== node)
                crossLatency.add(now - sentAt)
              delivered++
            }
          })
        }
      }
      for (const p of providers) while (!p.synced) await sleep(20)
      // One timer: every tick each client writes one update, in a round that spreads the sends.
      let round_ = 0
      const ticks = setInterval(() => {
        for (const c of clients)
          c.doc.getMap<number>('m').set(`${c.id}:${round_}`, performance.now() + performance.timeOrigin)
        if (round_ >= firstRound) sent += clients.length
        round_++
      }, 1000 / rate)
      await sleep(warmupS * 1000)
      const haproxyPid = lb?.pid
      const counts0 = await backendCounts(pg.url, redis.url)
      const cycles0 = (await Promise.all(nodes.map(metricsOf))).reduce((n, t) => n + cyclesRun(t), 0)
      const cpu0 = nodes.reduce((s, x) => s + cpuSeconds(x.child.pid!), 0)
      const lbCpu0 = haproxyPid ? cpuSeconds(haproxyPid) : 0
      firstRound = round_
      await sleep(durationS * 1000)
      clearInterval(ticks)
      await sleep(2000) // the last deliveries
      const cpu = nodes.reduce((s, x) => s + cpuSeconds(x.child.pid!), 0) - cpu0
      const lbCpu = haproxyPid ? cpuSeconds(haproxyPid) - lbCpu0 : 0
      const counts1 = await backendCounts(pg.url, redis.url)
      const redisCommands = redisDelta(counts0.redis, counts1.redis)
      const redisTotal = Object.values(redisCommands).reduce((a, b) => a + b, 0)
      const texts = await Promise.all(nodes.map(metricsOf))
      const loaded = texts.map(roomsLoaded)
      const cycles = texts.reduce((n, t) => n + cyclesRun(t), 0) - cycles0
      const pgXacts = counts1.pgXacts - counts0.pgXacts - 2 // the bench's own two readings
      const busOut = texts.reduce(
        (s, t) => s + counter(t, 'tandem_bus_messages_total', 'direction="out",type="update"'),
        0,
      )
      const busIn = texts.reduce((s, t) => s + busReceived(t), 0)
      for (const p of providers) p.destroy()
      await lb?.close()
      for (const x of nodes) await x.stop('SIGTERM')
      const expected = sent * (perRoom - 1)
      const res: ClusterResult = {
        setup,
        round: roundNo,
        nodes: n,
        sent,
        expected,
        delivered,
        deliveryRatio: expected ? round(delivered / expected, 4) : 0,
        latencyMs: latency.summary(),
        crossNodeLatencyMs: setup === 'split' ? crossLatency.summary() : null,
        serverCpuSeconds: round(cpu),
        cpuMsPerDelivery: delivered ? round((cpu * 1000) / delivered, 4) : 0,
        haproxyCpuMsPerDelivery: lb && delivered ? round((lbCpu * 1000) / delivered, 4) : null,
        roomsLoaded: loaded,
        idleCpuMsPerNodeS,
        pgTransactionsPerDelivery: delivered ? round(pgXacts / delivered, 4) : 0,
        cycles,
        pgTransactionsPerCycle: cycles ? round(pgXacts / cycles, 3) : 0,
        redisCommandsPerCycle: cycles ? round(redisTotal / cycles, 3) : 0,
        redisCommandsPerDelivery: delivered ? round(redisTotal / delivered, 4) : 0,
        redisCommands,
        idleWakeupsPerNodeS,
        busOutPerDelivery: delivered ? round(busOut / delivered, 4) : 0,
        busInPerDelivery: delivered ? round(busIn / delivered, 4) : 0,
      }
      log(JSON.stringify(res))
      results.push(res)
    }
  } finally {
    await redis.close()
    await pg.close()
    await rm(dir, { recursive: true, force: true })
  }
  return results
}

export interface Ratio {
  /** every round's nodes' CPU over every round's deliveries, one set-up over the other */
  pooled: number
  /** the median of the rounds' ratios (the ratio itself with one round) */
  median: number
  min: number
  max: number
  rounds: number[]
}

/** CPU per delivery of set-up `of` over set-up `over`'s (e.g. haproxy over one node), round by round. */
export function cpuRatio(
  results: ClusterResult[],
  of: ClusterSetup = 'haproxy',
  over: ClusterSetup = 'one node',
): Ratio | null {
  const perRound: number[] = []
  for (const r of new Set(results.map((x) => x.round))) {
    const base = results.find((x) => x.round === r && x.setup === over)?.cpuMsPerDelivery
    const x = results.find((y) => y.round === r && y.setup === of)?.cpuMsPerDelivery
    if (base && x) perRound.push(round(x / base, 2))
  }
  if (!perRound.length) return null
  const perDelivery = (setup: ClusterSetup) => {
    const rs = results.filter((x) => x.setup === setup)
    return rs.reduce((n, x) => n + x.serverCpuSeconds, 0) / rs.reduce((n, x) => n + x.delivered, 0)
  }
  const sorted = [...perRound].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const median = sorted.length % 2 ? sorted[mid]! : round((sorted[mid - 1]! + sorted[mid]!) / 2, 2)
  return {
    pooled: round(perDelivery(of) / perDelivery(over), 2),
    median,
    min: sorted[0]!,
    max: sorted.at(-1)!,
    rounds: perRound,
  }
}

/** "1.05" for one round; "1.05 pooled (rounds: median 1.04, 0.98-1.12, 4 rounds)" for several. */
export function formatRatio(r: Ratio | null): string {
  if (!r) return '-'
  return r.rounds.length > 1
    ? `${r.pooled} pooled (rounds: median ${r.median}, ${r.min}-${r.max}, ${r.rounds.length} rounds)`
    : String(r.median)
}
