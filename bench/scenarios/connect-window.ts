// The measuring window shared by the storm and cold scenarios: clients connect through a pool of
// `concurrency` in flight while server CPU, foreign load, RSS and load-generator CPU are recorded;
// each client counts once its sync carried the whole document.
import type { LoadClient } from '../../src/loadtest/client.js'
import { pool } from '../../src/loadtest/pool.js'
import { now } from '../../src/loadtest/marks.js'
import type { RunningPeer } from '../lib/peers.js'
import { ForeignLoad, RssSampler, alive, cpuSeconds, mainThreadCpuSeconds, memory } from '../lib/proc.js'
import { Samples, type Summary } from '../../src/loadtest/stats.js'
import type { Ctx } from './types.js'

export interface ConnectWindow {
  ok: number
  wallSec: number
  cpuSec: number
  mainSec: number
  foreignLoad: number | null
  /** load generator CPU, cores */
  loadGenCpu: number
  rssBefore: number
  peakRss: number
  /** start to whole document received */
  sync: Summary
  /** start to WebSocket open */
  upgrade: Summary
  bytesIn: number
}

/** `what` names the unit in progress and notes: e.g. { done: 'synced', failed: 'clients did not sync' }. */
export async function measureConnects(
  peer: RunningPeer,
  clients: LoadClient[],
  concurrency: number,
  ctx: Ctx,
  notes: string[],
  what: { label: string; done: string; failed: string },
): Promise<ConnectWindow> {
  const mem0 = memory(peer.pid)
  const cpu0 = cpuSeconds(peer.pid)
  const foreign = new ForeignLoad(ctx.serverCores ?? null)
  foreign.start()
  const main0 = mainThreadCpuSeconds(peer.pid)
  const load0 = process.cpuUsage()
  const sampler = new RssSampler(peer.pid, 100)
  sampler.start()
  const t0 = now()
  let done = 0
  const results = await pool(clients, concurrency, async (c) => {
    await c.connect()
    if (++done % 250 === 0) ctx.progress(`${what.label}/${peer.name}: ${done}/${clients.length} ${what.done}`)
  })
  const wallSec = (now() - t0) / 1000
  const serverAlive = alive(peer.pid)
  const cpuSec = serverAlive ? cpuSeconds(peer.pid) - cpu0 : NaN
  const foreignLoad = foreign.stop(cpuSec)
  if (foreignLoad !== null && foreignLoad > 0.2)
    notes.push(`other processes used ${(foreignLoad * 100).toFixed(0)}% of the server's core during the window: noisy`)
  const mainSec = serverAlive ? mainThreadCpuSeconds(peer.pid) - main0 : NaN
  const load = process.cpuUsage(load0)
  const rss = sampler.stop()
  const memEnd = serverAlive ? memory(peer.pid) : { rss: 0, hwm: 0 }
  if (!serverAlive) notes.push('server process died during the run')
  const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]
  if (failed.length)
    notes.push(
      `${failed.length} of ${clients.length} ${what.failed} (first: ${String((failed[0]!.reason as Error).message)})`,
    )
  const sync = new Samples()
  const upgrade = new Samples()
  let bytesIn = 0
  for (const c of clients) {
    if (c.syncedAt) sync.add(c.syncedAt - c.startedAt)
    if (c.openedAt) upgrade.add(c.openedAt - c.startedAt)
    bytesIn += c.bytesIn
  }
  return {
    ok: clients.length - failed.length,
    wallSec,
    cpuSec,
    mainSec,
    foreignLoad,
    loadGenCpu: (load.user + load.system) / 1e6 / wallSec,
    rssBefore: mem0.rss,
    peakRss: Math.max(rss.peak, memEnd.hwm),
    sync: sync.summary(),
    upgrade: upgrade.summary(),
    bytesIn,
  }
}
