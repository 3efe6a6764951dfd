// `npm run bench -- --scenario cluster [--duration S --rooms N --clients-per-room N --rate R
// --haproxy-config FILE --setups haproxy,split]`: real `tandem serve` processes over one PostgreSQL (and one redis-server
// for the cluster), three set-ups at the same load:
//   one node      every client on one node (the baseline);
//   haproxy       three nodes behind HAProxy running docs/cluster/haproxy.cfg (or FILE), every
//                 client through it: what a deployment gets from the shipped configuration;
//   split         three nodes, each room's clients spread round robin over them directly (what
//                 happens when affinity is lost: a node died, another balancer): cross-node latency.
// Every client writes `rate` updates a second, stamped with its send time; every other client of
// the room counts the delivery. Reports delivery latency, the delivery ratio (nothing lost is 1)
// and the nodes' CPU per delivery; the target is haproxy at most 1.3x one node.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken } from '../src/auth/capability.js'
import { startShippedHaproxy, type Haproxy } from '../test/helpers/haproxy.js'
import { startPostgres } from '../test/helpers/postgres.js'
import { freePort, startRedis } from '../test/helpers/redis.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../test/helpers/tandem-process.js'
import { list, log, num, type Flags } from './lib/args.js'
import { cpuSeconds } from './lib/proc.js'
import { Samples, round, type Summary } from './lib/stats.js'

export type ClusterSetup = 'one node' | 'haproxy' | 'split'

export interface ClusterResult {
  setup: ClusterSetup
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
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function roomsLoaded(n: TandemProcess): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${n.apiPort}/metrics`)).text()
  return Number(/^tandem_rooms_loaded (\d+)$/m.exec(text)?.[1] ?? NaN)
}

export async function runClusterBench(flags: Flags): Promise<ClusterResult[]> {
  const durationS = num(flags, 'duration') ?? 10
  const rooms = num(flags, 'rooms') ?? 20
  const perRoom = num(flags, 'clients-per-room') ?? 5
  const rate = num(flags, 'rate') ?? 5 // updates per second per client
  const haproxyConfig = flags.get('haproxy-config') ?? undefined
  const dir = await mkdtemp(join(tmpdir(), 'tandem-bench-cluster-'))
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()])
  const { file, keys } = await sharedSigningKeys(dir)
  const results: ClusterResult[] = []
  try {
    const setups = (list(flags, 'setups') ?? ['one node', 'haproxy', 'split']) as ClusterSetup[]
    for (const setup of setups) {
      const n = setup === 'one node' ? 1 : 3
      const schema = `bench_cluster_${setup.replace(' ', '_')}`
      const env = {
        TANDEM_POSTGRES_URL: pg.url,
        TANDEM_POSTGRES_SCHEMA: schema,
        TANDEM_SIGNING_KEYS: file,
        TANDEM_LOG_LEVEL: 'warn',
        TANDEM_TRUSTED_PROXIES: '127.0.0.1',
        ...(n > 1 ? { TANDEM_REDIS_URL: redis.url } : {}),
      }
      const ports = await Promise.all(Array.from({ length: n }, async () => [await freePort(), await freePort()] as const))
      const spawn = (i: number) =>
        spawnTandem(['--data-dir', join(dir, `${schema}-${i}`), '--collab-port', String(ports[i]![0]), '--api-port', String(ports[i]![1])], env)
      const nodes: TandemProcess[] = [await spawn(0)] // the first migrates
      nodes.push(...(await Promise.all(Array.from({ length: n - 1 }, (_, i) => spawn(i + 1)))))
      const lb: Haproxy | null = setup === 'haproxy' ? await startShippedHaproxy(ports, haproxyConfig) : null
      if (lb) await sleep(2_500) // HAProxy's checks (rise 2, every 1 s) put the nodes in rotation
      log(`cluster bench: ${setup} (${n} node(s)), ${rooms} rooms x ${perRoom} clients, ${rate} updates/s per client, ${durationS} s`)

      const providers: WebsocketProvider[] = []
      const clients: { doc: Y.Doc; node: number; id: string }[] = []
      const latency = new Samples()
      const crossLatency = new Samples()
      let delivered = 0
      let sent = 0
      for (let r = 0; r < rooms; r++) {
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
              if (typeof sentAt !== 'number') continue
              latency.add(now - sentAt)
              if (setup === 'split' && nodeOf.get(key.slice(0, key.indexOf(':'))) !== node) crossLatency.add(now - sentAt)
              delivered++
            }
          })
        }
      }
      for (const p of providers) while (!p.synced) await sleep(20)
      const haproxyPid = lb?.pid
      const cpu0 = nodes.reduce((s, x) => s + cpuSeconds(x.child.pid!), 0)
      const lbCpu0 = haproxyPid ? cpuSeconds(haproxyPid) : 0
      // One timer: every tick each client writes one update, in a round that spreads the sends.
      let round_ = 0
      const ticks = setInterval(() => {
        for (const c of clients) c.doc.getMap<number>('m').set(`${c.id}:${round_}`, performance.now() + performance.timeOrigin)
        sent += clients.length
        round_++
      }, 1000 / rate)
      await sleep(durationS * 1000)
      clearInterval(ticks)
      await sleep(2000) // the last deliveries
      const cpu = nodes.reduce((s, x) => s + cpuSeconds(x.child.pid!), 0) - cpu0
      const lbCpu = haproxyPid ? cpuSeconds(haproxyPid) - lbCpu0 : 0
      const loaded = await Promise.all(nodes.map(roomsLoaded))
      for (const p of providers) p.destroy()
      await lb?.close()
      for (const x of nodes) await x.stop('SIGTERM')
      const expected = sent * (perRoom - 1)
      const res: ClusterResult = {
        setup,
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

/** CPU per delivery of the HAProxy set-up over one node's (the target: at most 1.3). */
export function cpuRatio(results: ClusterResult[]): number | null {
  const one = results.find((r) => r.setup === 'one node')?.cpuMsPerDelivery
  const lb = results.find((r) => r.setup === 'haproxy')?.cpuMsPerDelivery
  return one && lb ? round(lb / one, 2) : null
}
