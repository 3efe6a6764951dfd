// `npm run bench -- --scenario cluster [--duration S --rooms N --clients-per-room N --rate R]`:
// three cluster nodes (real `tandem serve` processes over one PostgreSQL and one redis-server) vs
// one node on the same PostgreSQL. Each room has one writer and readers spread over the nodes
// (round robin, so most readers sit on another node than the writer); the writer stamps each
// update with its send time. Reports delivery latency p50/p99 (cross-node only, in the cluster),
// the delivery ratio and the servers' CPU per delivery.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken } from '../src/auth/capability.js'
import { startPostgres } from '../test/helpers/postgres.js'
import { startRedis } from '../test/helpers/redis.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../test/helpers/tandem-process.js'
import { log, num, type Flags } from './lib/args.js'
import { cpuSeconds } from './lib/proc.js'
import { Samples, round, type Summary } from './lib/stats.js'

export interface ClusterResult {
  nodes: number
  sent: number
  expected: number
  delivered: number
  deliveryRatio: number
  /** ms, send to receive, readers on another node than the writer (all readers with one node) */
  latencyMs: Summary
  serverCpuSeconds: number
  cpuMsPerDelivery: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function runClusterBench(flags: Flags): Promise<ClusterResult[]> {
  const durationS = num(flags, 'duration') ?? 10
  const rooms = num(flags, 'rooms') ?? 10
  const perRoom = num(flags, 'clients-per-room') ?? 7
  const rate = num(flags, 'rate') ?? 10 // updates per second per room
  const dir = await mkdtemp(join(tmpdir(), 'tandem-bench-cluster-'))
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()])
  const { file, keys } = await sharedSigningKeys(dir)
  const results: ClusterResult[] = []
  try {
    for (const n of [1, 3]) {
      const schema = `bench_cluster_${n}`
      const env = {
        TANDEM_POSTGRES_URL: pg.url,
        TANDEM_POSTGRES_SCHEMA: schema,
        TANDEM_SIGNING_KEYS: file,
        TANDEM_LOG_LEVEL: 'warn',
        ...(n > 1 ? { TANDEM_REDIS_URL: redis.url } : {}),
      }
      const nodes: TandemProcess[] = [await spawnTandem(['--data-dir', join(dir, `n${n}-0`)], env)]
      for (let i = 1; i < n; i++) nodes.push(await spawnTandem(['--data-dir', join(dir, `n${n}-${i}`)], env))
      log(`cluster bench: ${n} node(s), ${rooms} rooms x ${perRoom} clients, ${rate} updates/s per room, ${durationS} s`)
      const providers: WebsocketProvider[] = []
      const latency = new Samples()
      let delivered = 0
      let sent = 0
      let expected = 0
      const writers: { doc: Y.Doc; readers: number }[] = []
      for (let r = 0; r < rooms; r++) {
        const doc = `room-${r}`
        const token = (await mintToken(keys, { org: 'bench', doc, sub: 'bench@x', acc: 'rw', ttlSec: 3600 })).token
        for (let k = 0; k < perRoom; k++) {
          const nodeIdx = (r + k) % n
          const ydoc = new Y.Doc()
          const p = new WebsocketProvider(`${nodes[nodeIdx]!.wsUrl}/bench`, doc, ydoc, {
            params: { yauth: token },
            WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
            disableBc: true,
          })
          providers.push(p)
          if (k === 0) writers.push({ doc: ydoc, readers: 0 })
          else {
            const crossNode = n === 1 || nodeIdx !== r % n
            if (crossNode) writers[r]!.readers++
            else continue
            ydoc.getMap<number>('m').observe((e) => {
              if (e.transaction.local) return
              for (const key of e.keysChanged) {
                const sentAt = ydoc.getMap<number>('m').get(key)
                if (typeof sentAt === 'number') {
                  latency.add(performance.now() + performance.timeOrigin - sentAt)
                  delivered++
                }
              }
            })
          }
        }
      }
      for (const p of providers) while (!p.synced) await sleep(20)
      const cpu0 = nodes.reduce((s, x) => s + cpuSeconds(x.child.pid!), 0)
      const ticks = setInterval(() => {
        for (const w of writers) {
          w.doc.getMap<number>('m').set(`k${sent}`, performance.now() + performance.timeOrigin)
          expected += w.readers
        }
        sent++
      }, 1000 / rate)
      await sleep(durationS * 1000)
      clearInterval(ticks)
      await sleep(2000) // the last deliveries
      const cpu = nodes.reduce((s, x) => s + cpuSeconds(x.child.pid!), 0) - cpu0
      for (const p of providers) p.destroy()
      for (const x of nodes) await x.stop('SIGTERM')
      const res: ClusterResult = {
        nodes: n,
        sent: sent * rooms,
        expected,
        delivered,
        deliveryRatio: expected ? round(delivered / expected, 4) : 0,
        latencyMs: latency.summary(),
        serverCpuSeconds: round(cpu),
        cpuMsPerDelivery: delivered ? round((cpu * 1000) / delivered, 4) : 0,
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
