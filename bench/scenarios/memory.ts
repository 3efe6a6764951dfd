// Memory per loaded document (issue 24): N copies of a realistic document (three writers' edits
// and deletions in a Y.Text plus a Y.Map, ~79 KB encoded) and N of a plain text of the same encoded
// size are written through the socket (one writer per document, which then disconnects). Then, each
// time in a fresh server process on the same data dir (a restart: what is measured is the loaded
// state, not what writing left behind), N readers join N documents and stay: first N documents that
// were never written (the baseline: N sockets, N empty rooms), then the N realistic ones, then the N
// plain ones. After a forced GC in the server (bench/peers/gc-probe.mjs), its RSS (VmRSS) is read;
// (RSS loaded - RSS empty) / N is the cost of one loaded document. The readers are raw-protocol
// clients in this process: no client memory in the server's figure.
import { LoadClient } from '../../src/loadtest/client.js'
import { pool } from '../../src/loadtest/pool.js'
import { plainTextDoc, realisticDoc } from '../lib/docs.js'
import { collectAndRead } from '../lib/gc.js'
import type { RunningPeer } from '../lib/peers.js'
import { ForeignLoad, alive, cpuSeconds, memory, waitForQuietDir } from '../lib/proc.js'
import { markerText } from '../lib/seed.js'
import { round } from '../../src/loadtest/stats.js'
import { seedRooms } from './seeding.js'
import { sleep } from './traffic.js'
import type { Ctx, Metrics, ScenarioResult } from './types.js'

export interface MemorySize {
  /** documents of each kind loaded at once */
  docs: number
  /** encoded size the realistic document is grown to (KB) */
  docKB: number
  /** readers joining at once */
  concurrency: number
  /** times the three loads (empty, realistic, plain) are repeated, each in a fresh process; medians reported */
  rounds: number
}

const MB = 1024 * 1024
type Phase = 'empty' | 'real' | 'plain'

interface Load {
  rss: number
  /** of it, anonymous memory (RssAnon): without file pages mapped into the process (LevelDB's tables) */
  anon: number
  /** RSS of the same process right after start, before any reader */
  idleRss: number
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
  synced: number
  gc: boolean
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN
}

/** Returns the result and the last server process (the caller stops it). */
export async function runMemory(
  first: RunningPeer,
  size: MemorySize,
  ctx: Ctx,
): Promise<ScenarioResult & { peer: RunningPeer }> {
  const notes: string[] = []
  const real = realisticDoc(size.docKB * 1024)
  const plain = plainTextDoc(real.update.length)
  const names = (phase: Phase): string[] => Array.from({ length: size.docs }, (_, i) => `mem-${phase}-${i}`)
  ctx.progress(
    `memory: writing ${size.docs} realistic documents (${real.update.length} B encoded, ${real.items} items, ${real.chars} chars) and ${size.docs} plain ones (${plain.update.length} B, ${plain.items} items)`,
  )
  for (const [phase, doc] of [
    ['real', real],
    ['plain', plain],
  ] as const) {
    const seeded = await seedRooms(first, names(phase), doc.update, 20, false, ctx)
    if (seeded.failures) notes.push(`${seeded.failures} ${phase} documents failed to be written`)
  }
  // Debounced stores (Hocuspocus) and queued writes (y-leveldb writes one update at a time, behind
  // the socket: its queue may run minutes behind, and SIGTERM does not wait for it) land before the stop.
  await sleep(4000)
  const settleMs = await waitForQuietDir(first.dataDir)
  ctx.progress(`memory/${first.name}: data dir quiet after ${(settleMs / 1000).toFixed(1)} s more`)

  // Other processes' share of the server's core, per load window (restarts left out: their start-up
  // CPU is not a load's), averaged.
  const foreignLoads: number[] = []
  let cpuSec = 0
  let peer = first
  const loads: Record<Phase, Load[]> = { empty: [], real: [], plain: [] }
  for (let r = 0; r < size.rounds; r++) {
    for (const phase of ['empty', 'real', 'plain'] as const) {
      ctx.progress(
        `memory/${peer.name}: restart, then ${size.docs} readers on ${phase} documents${size.rounds > 1 ? ` (round ${r + 1}/${size.rounds})` : ''}`,
      )
      peer = await peer.restart()
      await sleep(1000)
      const cpu0 = cpuSeconds(peer.pid)
      const foreign = new ForeignLoad(ctx.serverCores ?? null)
      foreign.start()
      const idle = await collectAndRead(peer.pid, 500)
      const readers: LoadClient[] = []
      const docs = names(phase)
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i]!
        const opts =
          phase === 'empty'
            ? { connectTimeoutMs: 60_000 }
            : { connectTimeoutMs: 60_000, marker: Buffer.from(markerText(doc)) }
        readers.push(new LoadClient(i, await peer.target('bench', doc, `reader${i}`), opts))
      }
      const res = await pool(readers, size.concurrency, (c) => c.connect())
      const failed = res.filter((x) => x.status === 'rejected') as PromiseRejectedResult[]
      if (failed.length)
        notes.push(
          `${phase}: ${failed.length} of ${docs.length} readers did not load the whole document (first: ${String((failed[0]!.reason as Error).message)})`,
        )
      // Loads finishing after the answer (the reference server answers step 1 before loading).
      await sleep(2000)
      if (!alive(peer.pid)) throw new Error(`server died with ${phase} documents loaded`)
      const { heap, mem } = await collectAndRead(peer.pid)
      const phaseCpu = cpuSeconds(peer.pid) - cpu0
      cpuSec += phaseCpu
      const fl = foreign.stop(phaseCpu)
      if (fl !== null) foreignLoads.push(fl)
      const open = readers.filter((c) => c.open).length
      if (open < docs.length - failed.length)
        notes.push(`${phase}: ${docs.length - failed.length - open} readers were closed before the reading`)
      loads[phase].push({
        rss: mem.rss,
        anon: mem.anon,
        idleRss: idle.mem.rss,
        heapUsed: heap?.heapUsed ?? NaN,
        heapTotal: heap?.heapTotal ?? NaN,
        external: heap?.external ?? NaN,
        arrayBuffers: heap?.arrayBuffers ?? NaN,
        synced: docs.length - failed.length,
        gc: heap?.gc ?? false,
      })
      ctx.progress(
        `memory/${peer.name}: ${phase}: RSS ${(mem.rss / MB).toFixed(1)} MB (idle ${(idle.mem.rss / MB).toFixed(1)}), heap used ${((heap?.heapUsed ?? NaN) / MB).toFixed(1)} MB`,
      )
      await pool(readers, 500, (c) => c.close())
    }
  }
  const foreignLoad = foreignLoads.length
    ? round(foreignLoads.reduce((a, b) => a + b, 0) / foreignLoads.length, 2)
    : null
  if (foreignLoad !== null && foreignLoad > 0.2)
    notes.push(`other processes used ${(foreignLoad * 100).toFixed(0)}% of the server's core during the loads: noisy`)
  if (Object.values(loads).some((ls) => ls.some((l) => !l.gc)))
    notes.push('the server ran without --expose-gc: RSS read without a forced collection')

  const n = size.docs
  const kb = (bytes: number): number => round(bytes / 1024 / n, 1)
  const perDoc = (phase: 'real' | 'plain', pick: (l: Load) => number): number =>
    median(loads[phase].map((l, i) => pick(l) - pick(loads.empty[i]!)))
  const metrics: Metrics = { docs: n, rounds: size.rounds, settleSec: round(settleMs / 1000, 1) }
  for (const [phase, doc, prefix] of [
    ['real', real, ''],
    ['plain', plain, 'plain'],
  ] as const) {
    const key = (k: string): string => (prefix ? prefix + k.charAt(0).toUpperCase() + k.slice(1) : k)
    const rss = perDoc(phase, (l) => l.rss)
    metrics[key('encodedKB')] = round(doc.update.length / 1024, 1)
    metrics[key('items')] = doc.items
    metrics[key('kbPerDoc')] = kb(rss)
    metrics[key('xEncoded')] = round(rss / n / doc.update.length, 2)
    // LevelDB reads its table files through mmap: the pages it touched count in RSS as file
    // pages (page cache the kernel takes back), not as memory the process allocated.
    const anon = perDoc(phase, (l) => l.anon)
    metrics[key('anonKbPerDoc')] = kb(anon)
    metrics[key('anonXEncoded')] = round(anon / n / doc.update.length, 2)
    metrics[key('heapKbPerDoc')] = kb(perDoc(phase, (l) => l.heapUsed))
    // V8's heap as reserved (used + free space in its pages): the part of RSS a GC does not give back.
    metrics[key('heapTotalKbPerDoc')] = kb(perDoc(phase, (l) => l.heapTotal))
    metrics[key('externalKbPerDoc')] = kb(perDoc(phase, (l) => l.external))
    // The same difference with each process's own start-up RSS taken off (less process-to-process noise).
    metrics[key('kbPerDocFromIdle')] = kb(perDoc(phase, (l) => l.rss - l.idleRss))
    metrics[key('loaded')] = median(loads[phase].map((l) => l.synced))
    metrics[key('rssMB')] = round(median(loads[phase].map((l) => l.rss)) / MB, 1)
  }
  metrics.rssEmptyMB = round(median(loads.empty.map((l) => l.rss)) / MB, 1)
  metrics.rssIdleMB = round(median(loads.empty.map((l) => l.idleRss)) / MB, 1)
  metrics.emptyLoaded = median(loads.empty.map((l) => l.synced))
  metrics.serverCpuSec = round(cpuSec, 2)
  metrics.foreignLoadServerCore = foreignLoad
  if (size.rounds > 1) {
    const spread = (phase: 'real' | 'plain'): string =>
      loads[phase].map((l, i) => kb(l.rss - loads.empty[i]!.rss)).join(', ')
    notes.push(`KB per document by round: realistic ${spread('real')}; plain ${spread('plain')}`)
  }
  metrics.serverRssAtEndMB = alive(peer.pid) ? round(memory(peer.pid).rss / MB, 1) : null
  return { peer, notes, metrics }
}
