// Cold load: D documents of a given size written, the server stopped and started again on the
// same data dir, then every document opened once (first open after restart) until its marker arrives.
// Peers run with their own persistence here (reference server: y-leveldb; Hocuspocus: the
// Database extension storing one file per document).
import { LoadClient } from '../../src/loadtest/client.js'
import { pool } from '../../src/loadtest/pool.js'
import { now } from '../../src/loadtest/marks.js'
import type { RunningPeer } from '../lib/peers.js'
import { markerText, seedUpdate } from '../lib/seed.js'
import { round } from '../../src/loadtest/stats.js'
import { measureConnects } from './connect-window.js'
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
export async function runCold(
  first: RunningPeer,
  size: ColdSize,
  ctx: Ctx,
): Promise<ScenarioResult & { peer: RunningPeer }> {
  const notes: string[] = []
  const seed = seedUpdate(size.docKB * 1024, 7)
  const docs = Array.from({ length: size.docs }, (_, d) => `cold-${d}`)
  ctx.progress(`cold: writing ${size.docs} documents of ${(seed.length / 1024).toFixed(0)} KB`)
  const seeded = await seedRooms(first, docs, seed, 20, false, ctx)
  if (seeded.failures) notes.push(`${seeded.failures} documents failed to seed`)
  // Let debounced stores (Hocuspocus) and asynchronous log writes (y-leveldb) land before the stop.
  await sleep(4000)
  ctx.progress(`cold/${first.name}: restarting`)
  // Restart time = graceful stop (SIGTERM until the process exits) + start (spawn until it accepts).
  const r0 = now()
  await first.stop()
  const stopMs = now() - r0
  const peer = await first.restart()
  const restartMs = now() - r0
  await sleep(500)

  const clients: LoadClient[] = []
  for (let i = 0; i < size.docs; i++) {
    const doc = docs[i]!
    clients.push(
      new LoadClient(i, await peer.target('bench', doc, `u${i}`), {
        marker: Buffer.from(markerText(doc)),
        connectTimeoutMs: 60_000,
      }),
    )
  }
  const w = await measureConnects(peer, clients, size.concurrency, ctx, notes, {
    label: 'cold',
    done: 'opened',
    failed: 'documents did not load whole',
  })
  await pool(clients, 500, (c) => c.close())
  const ok = w.ok
  return {
    peer,
    notes,
    metrics: {
      docs: size.docs,
      docBytes: seed.length,
      loaded: ok,
      loadRatio: round(ok / size.docs, 4),
      restartMs: round(restartMs, 0),
      stopMs: round(stopMs, 0),
      startMs: round(restartMs - stopMs, 0),
      wallSec: round(w.wallSec, 2),
      docsPerSec: round(ok / w.wallSec, 1),
      openP50Ms: w.sync.p50,
      openP99Ms: w.sync.p99,
      openMaxMs: w.sync.max,
      upgradeP50Ms: w.upgrade.p50,
      upgradeP99Ms: w.upgrade.p99,
      serverCpuSec: round(w.cpuSec, 2),
      foreignLoadServerCore: w.foreignLoad,
      serverMainThreadCpuSec: round(w.mainSec, 2),
      loadGenCpu: round(w.loadGenCpu, 2),
      cpuMsPerDoc: ok ? round((w.cpuSec * 1000) / ok, 2) : null,
      serverRssBeforeMB: round(w.rssBefore / MB, 1),
      serverPeakRssMB: round(w.peakRss / MB, 1),
    },
  }
}
