// Cold load: D documents of a given size written, the server stopped and started again on the
// same data dir, then every document opened once (first open after restart) until its marker arrives.
// Peers run with their own persistence here (reference server: y-leveldb; Hocuspocus: the
// Database extension storing one file per document).
import { BenchClient, pool } from '../lib/client.js'
import { now } from '../lib/marks.js'
import type { RunningPeer } from '../lib/peers.js'
import { ForeignLoad, RssSampler, alive, cpuSeconds, mainThreadCpuSeconds, memory } from '../lib/proc.js'
import { markerText, seedUpdate } from '../lib/seed.js'
import { Samples, round } from '../lib/stats.js'
import { seedRooms } from './seeding.js'
import { sleep } from './traffic.js'
import type { Ctx, ScenarioResult } from './types.js'

export interface ColdSize {
  docs: number
  docKB: number
  /** documents opened at once after the restart */
  concurrency: number
}

const MB = 1024 * 1024

/** Returns the result and the restarted peer (the caller stops it). */
export async function runCold(first: RunningPeer, size: ColdSize, ctx: Ctx): Promise<ScenarioResult & { peer: RunningPeer }> {
  const notes: string[] = []
  const seed = seedUpdate(size.docKB * 1024, 7)
  const docs = Array.from({ length: size.docs }, (_, d) => `cold-${d}`)
  ctx.progress(`cold: writing ${size.docs} documents of ${(seed.length / 1024).toFixed(0)} KB`)
  const seeded = await seedRooms(first, docs, seed, 20, false, ctx)
  if (seeded.failures) notes.push(`${seeded.failures} documents failed to seed`)
  // Let debounced stores (Hocuspocus) and asynchronous log writes (y-leveldb) land before the stop.
  await sleep(4000)
  ctx.progress(`cold/${first.name}: restarting`)
  const r0 = now()
  const peer = await first.restart()
  const restartMs = now() - r0
  await sleep(500)

  const clients: BenchClient[] = []
  for (let i = 0; i < size.docs; i++) {
    const doc = docs[i]!
    clients.push(new BenchClient(i, await peer.target('bench', doc, `u${i}`), { marker: Buffer.from(markerText(doc)), connectTimeoutMs: 60_000 }))
  }
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
  const results = await pool(clients, size.concurrency, async (c) => {
    await c.connect()
    if (++done % 250 === 0) ctx.progress(`cold/${peer.name}: ${done}/${size.docs} opened`)
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
  if (failed.length) notes.push(`${failed.length} of ${size.docs} documents did not load whole (first: ${String((failed[0]!.reason as Error).message)})`)
  const open = new Samples()
  const upgrade = new Samples()
  for (const c of clients) {
    if (c.syncedAt) open.add(c.syncedAt - c.startedAt)
    if (c.openedAt) upgrade.add(c.openedAt - c.startedAt)
  }
  const s = open.summary()
  const u = upgrade.summary()
  await pool(clients, 500, (c) => c.close())
  const ok = size.docs - failed.length
  return {
    peer,
    notes,
    metrics: {
      docs: size.docs,
      docBytes: seed.length,
      loaded: ok,
      loadRatio: round(ok / size.docs, 4),
      restartMs: round(restartMs, 0),
      wallSec: round(wallSec, 2),
      docsPerSec: round(ok / wallSec, 1),
      openP50Ms: s.p50,
      openP99Ms: s.p99,
      openMaxMs: s.max,
      upgradeP50Ms: u.p50,
      upgradeP99Ms: u.p99,
      serverCpuSec: round(cpuSec, 2),
      foreignLoadServerCore: foreignLoad,
      serverMainThreadCpuSec: round(mainSec, 2),
      loadGenCpu: round((load.user + load.system) / 1e6 / wallSec, 2),
      cpuMsPerDoc: ok ? round((cpuSec * 1000) / ok, 2) : null,
      serverRssBeforeMB: round(mem0.rss / MB, 1),
      serverPeakRssMB: round(Math.max(rss.peak, memEnd.hwm) / MB, 1),
    },
  }
}
