// Puts a seed document into each named room through the ordinary protocol, and waits until the
// server has applied it (it answered a later step 1).
import { LoadClient } from '../../src/loadtest/client.js'
import { pool } from '../../src/loadtest/pool.js'
import type { RunningPeer } from '../lib/peers.js'
import { markerUpdate, seedStateVector } from '../lib/seed.js'
import type { Ctx } from './types.js'

export async function seedRooms(
  peer: RunningPeer,
  docs: string[],
  seed: Uint8Array,
  concurrency: number,
  keepOpen: boolean,
  ctx: Ctx,
): Promise<{ writers: LoadClient[]; failures: number }> {
  const sv = seedStateVector(seed)
  let done = 0
  const writers: LoadClient[] = []
  const results = await pool(docs, concurrency, async (doc, i) => {
    const c = new LoadClient(9_000_000 + i, await peer.target('bench', doc, `seeder${i}`), {
      connectTimeoutMs: 120_000,
    })
    await c.connect()
    const marker = markerUpdate(sv, doc)
    // In order on one socket: the answer to the marker's step 1 comes after both were applied.
    c.sendUpdate(seed)
    await c.sendUpdateAndConfirm(marker.update, marker.stateVector, 120_000)
    if (keepOpen) writers.push(c)
    else await c.close()
    if (++done % 50 === 0) ctx.progress(`seeded ${done}/${docs.length} documents`)
  })
  const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]
  if (failed.length)
    ctx.progress(`seeding: ${failed.length} failed (first: ${String((failed[0]!.reason as Error).message)})`)
  return { writers, failures: failed.length }
}
