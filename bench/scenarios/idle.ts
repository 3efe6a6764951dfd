// Idle capacity: N synced connections spread over R rooms that then send nothing; the server's
// resident memory growth divided by N.
import { LoadClient } from '../../src/loadtest/client.js'
import { pool } from '../../src/loadtest/pool.js'
import { now } from '../../src/loadtest/marks.js'
import type { RunningPeer } from '../lib/peers.js'
import { ForeignLoad, alive, cpuSeconds, memory } from '../lib/proc.js'
import { round } from '../../src/loadtest/stats.js'
import { sleep } from './traffic.js'
import type { Ctx, ScenarioResult } from './types.js'

export interface IdleSize {
  connections: number
  rooms: number
  concurrency: number
  /** seconds to hold the connections idle before measuring */
  holdSec: number
}

const MB = 1024 * 1024

export async function runIdle(peer: RunningPeer, size: IdleSize, ctx: Ctx): Promise<ScenarioResult> {
  const notes: string[] = []
  const clients: LoadClient[] = []
  for (let i = 0; i < size.connections; i++) {
    clients.push(
      new LoadClient(i, await peer.target('bench', `idle-${i % size.rooms}`, `u${i}`), { connectTimeoutMs: 60_000 }),
    )
  }
  await sleep(1000)
  const mem0 = memory(peer.pid)
  const cpu0 = cpuSeconds(peer.pid)
  const foreign = new ForeignLoad(ctx.serverCores ?? null)
  foreign.start()
  ctx.progress(`idle: connecting ${size.connections} clients over ${size.rooms} rooms`)
  let done = 0
  const connect = async (c: LoadClient): Promise<void> => {
    await c.connect()
    if (++done % 1000 === 0) ctx.progress(`idle/${peer.name}: ${done}/${size.connections} connected`)
  }
  // In two halves, RSS read between them: the second half's growth is the cost of one more socket
  // once every room exists and the process has warmed up (JIT code, V8's young generation paged
  // in), which the growth from the start charges to the sockets too.
  const half = Math.floor(clients.length / 2)
  let t0 = now()
  const results = await pool(clients.slice(0, half), size.concurrency, connect)
  let connectSec = (now() - t0) / 1000
  await sleep(1000)
  const openHalf = clients.filter((c) => c.open).length
  const memHalf = alive(peer.pid) ? memory(peer.pid) : { rss: 0, hwm: 0 }
  t0 = now()
  results.push(...(await pool(clients.slice(half), size.concurrency, connect)))
  connectSec += (now() - t0) / 1000
  ctx.progress(`idle/${peer.name}: holding ${size.holdSec} s`)
  await sleep(size.holdSec * 1000)
  const serverAlive = alive(peer.pid)
  const mem1 = serverAlive ? memory(peer.pid) : { rss: 0, hwm: 0 }
  const cpuSec = serverAlive ? cpuSeconds(peer.pid) - cpu0 : NaN
  const foreignLoad = foreign.stop(cpuSec)
  if (foreignLoad !== null && foreignLoad > 0.2)
    notes.push(`other processes used ${(foreignLoad * 100).toFixed(0)}% of the server's core during the window: noisy`)
  if (!serverAlive) notes.push('server process died during the run')
  const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]
  if (failed.length)
    notes.push(
      `${failed.length} of ${size.connections} failed to connect (first: ${String((failed[0]!.reason as Error).message)})`,
    )
  const open = clients.filter((c) => c.open).length
  if (open < size.connections - failed.length)
    notes.push(`${size.connections - failed.length - open} sockets closed while idle`)
  ctx.progress(`closing ${clients.length} clients`)
  await pool(clients, 500, (c) => c.close())
  return {
    notes,
    metrics: {
      connections: size.connections,
      openAtMeasure: open,
      openRatio: round(open / size.connections, 4),
      connectPerSec: round((size.connections - failed.length) / connectSec, 1),
      serverRssBeforeMB: round(mem0.rss / MB, 1),
      serverRssMB: round(mem1.rss / MB, 1),
      serverPeakRssMB: round(mem1.hwm / MB, 1),
      rssPerConnKB: open ? round((mem1.rss - mem0.rss) / 1024 / open, 2) : null,
      serverRssHalfMB: round(memHalf.rss / MB, 1),
      rssPerConnSecondHalfKB: open > openHalf ? round((mem1.rss - memHalf.rss) / 1024 / (open - openHalf), 2) : null,
      serverCpuSec: round(cpuSec, 2),
      foreignLoadServerCore: foreignLoad,
    },
  }
}
