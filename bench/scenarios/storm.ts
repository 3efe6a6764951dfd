// Connect storm: N clients connect, as fast as the in-flight limit allows, to R rooms that already
// hold a document of the given size (kept loaded by one writer per room). A client counts once its
// sync carried the whole document (the room's marker arrived).
import { LoadClient } from '../../src/loadtest/client.js'
import { pool } from '../../src/loadtest/pool.js'
import type { RunningPeer } from '../lib/peers.js'
import { markerText, seedUpdate } from '../lib/seed.js'
import { round } from '../../src/loadtest/stats.js'
import { measureConnects } from './connect-window.js'
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

  const clients: LoadClient[] = []
  for (let i = 0; i < size.clients; i++) {
    const doc = docs[i % size.rooms]!
    clients.push(
      new LoadClient(i, await peer.target('bench', doc, `u${i}`), {
        marker: Buffer.from(markerText(doc)),
        connectTimeoutMs: 120_000,
      }),
    )
  }
  ctx.progress(`storm: ${size.clients} clients, ${size.concurrency} in flight`)
  const w = await measureConnects(peer, clients, size.concurrency, ctx, notes, {
    label: 'storm',
    done: 'synced',
    failed: 'clients did not sync',
  })
  ctx.progress(`closing ${clients.length + seeded.writers.length} clients`)
  await pool([...clients, ...seeded.writers], 500, (c) => c.close())
  const ok = w.ok
  return {
    notes,
    metrics: {
      clients: size.clients,
      docBytes: seed.length,
      synced: ok,
      syncRatio: round(ok / size.clients, 4),
      wallSec: round(w.wallSec, 2),
      connPerSec: round(ok / w.wallSec, 1),
      syncP50Ms: w.sync.p50,
      syncP99Ms: w.sync.p99,
      syncMaxMs: w.sync.max,
      upgradeP50Ms: w.upgrade.p50,
      upgradeP99Ms: w.upgrade.p99,
      serverCpuSec: round(w.cpuSec, 2),
      foreignLoadServerCore: w.foreignLoad,
      serverMainThreadCpuSec: round(w.mainSec, 2),
      loadGenCpu: round(w.loadGenCpu, 2),
      cpuMsPerConn: ok ? round((w.cpuSec * 1000) / ok, 2) : null,
      serverRssBeforeMB: round(w.rssBefore / MB, 1),
      serverPeakRssMB: round(w.peakRss / MB, 1),
      clientMBReceived: round(w.bytesIn / MB, 1),
    },
  }
}
