// Connect storm: N clients connect, as fast as the in-flight limit allows, to R rooms that already
// hold a document of the given size (kept loaded by one writer per room). A client counts once its
// sync carried the whole document (the room's marker arrived).
import { BenchClient, pool } from '../lib/client.js'
import { now } from '../lib/marks.js'
import type { RunningPeer } from '../lib/peers.js'
import { ForeignLoad, RssSampler, alive, cpuSeconds, mainThreadCpuSeconds, memory } from '../lib/proc.js'
import { markerText, seedUpdate } from '../lib/seed.js'
import { Samples, round } from '../lib/stats.js'
import { seedRooms } from './seeding.js'
import { sleep } from './traffic.js'
import type { Ctx, ScenarioResult } from './types.js'

export interface StormSize {
  rooms: number
  clients: number
  docKB: number
  /** connections in flight at once */
  concurrency: number
}

const MB = 1024 * 1024

export async function runStorm(peer: RunningPeer, size: StormSize, ctx: Ctx): Promise<ScenarioResult> {
  const notes: string[] = []
  const seed = seedUpdate(size.docKB * 1024)
  const docs = Array.from({ length: size.rooms }, (_, r) => `storm-${r}`)
  ctx.progress(`seeding ${size.rooms} rooms with ${(seed.length / 1024).toFixed(0)} KB each`)
  const seeded = await seedRooms(peer, docs, seed, 20, true, ctx)
  if (seeded.failures) notes.push(`${seeded.failures} rooms failed to seed`)
  await sleep(1000)

  const clients: BenchClient[] = []
  for (let i = 0; i < size.clients; i++) {
    const doc = docs[i % size.rooms]!
    clients.push(new BenchClient(i, await peer.target('bench', doc, `u${i}`), { marker: Buffer.from(markerText(doc)), connectTimeoutMs: 120_000 }))
  }
  const mem0 = memory(peer.pid)
  const cpu0 = cpuSeconds(peer.pid)
  const foreign = new ForeignLoad(ctx.serverCores ?? null)
  foreign.start()
  const main0 = mainThreadCpuSeconds(peer.pid)
  const load0 = process.cpuUsage()
  const sampler = new RssSampler(peer.pid, 100)
  sampler.start()
  ctx.progress(`storm: ${size.clients} clients, ${size.concurrency} in flight`)
  const t0 = now()
  let done = 0
  const results = await pool(clients, size.concurrency, async (c) => {
    await c.connect()
    if (++done % 250 === 0) ctx.progress(`storm/${peer.name}: ${done}/${size.clients} synced`)
  })
  const wallSec = (now() - t0) / 1000
  const serverAlive = alive(peer.pid)
  const cpuSec = serverAlive ? cpuSeconds(peer.pid) - cpu0 : NaN
  const foreignLoad = foreign.stop(cpuSec)
  if (foreignLoad !== null && foreignLoad > 0.2) notes.push(`other processes used ${(foreignLoad * 100).toFixed(0)}% of the server's core during the window: noisy`)
  const mainSec = serverAlive ? mainThreadCpuSeconds(peer.pid) - main0 : NaN
  const load = process.cpuUsage(load0)
  const rss = sampler.stop()
  const memEnd = serverAlive ? memory(peer.pid) : { rss: 0, hwm: 0 }
  if (!serverAlive) notes.push('server process died during the run')
  const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]
  if (failed.length) notes.push(`${failed.length} of ${size.clients} clients did not sync (first: ${String((failed[0]!.reason as Error).message)})`)
  const sync = new Samples()
  const upgrade = new Samples()
  let bytes = 0
  for (const c of clients) {
    if (c.syncedAt) sync.add(c.syncedAt - c.startedAt)
    if (c.openedAt) upgrade.add(c.openedAt - c.startedAt)
    bytes += c.bytesIn
  }
  const s = sync.summary()
  const u = upgrade.summary()
  ctx.progress(`closing ${clients.length + seeded.writers.length} clients`)
  await pool([...clients, ...seeded.writers], 500, (c) => c.close())
  const ok = size.clients - failed.length
  return {
    notes,
    metrics: {
      clients: size.clients,
      docBytes: seed.length,
      synced: ok,
      syncRatio: round(ok / size.clients, 4),
      wallSec: round(wallSec, 2),
      connPerSec: round(ok / wallSec, 1),
      syncP50Ms: s.p50,
      syncP99Ms: s.p99,
      syncMaxMs: s.max,
      upgradeP50Ms: u.p50,
      upgradeP99Ms: u.p99,
      serverCpuSec: round(cpuSec, 2),
      foreignLoadServerCore: foreignLoad,
      serverMainThreadCpuSec: round(mainSec, 2),
      loadGenCpu: round((load.user + load.system) / 1e6 / wallSec, 2),
      cpuMsPerConn: ok ? round((cpuSec * 1000) / ok, 2) : null,
      serverRssBeforeMB: round(mem0.rss / MB, 1),
      serverPeakRssMB: round(Math.max(rss.peak, memEnd.hwm) / MB, 1),
      clientMBReceived: round(bytes / MB, 1),
    },
  }
}
