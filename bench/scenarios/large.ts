// One large document (issue 24): ~50 MB of text, mostly appended with some edits and deletions by a
// second writer, sent through the socket as the writers' updates merged into ~1 MB messages (one
// socket, in order, confirmed every few messages), plus the marker. The server is restarted (the
// document now lives only in its persistence: Tandem's data dir, y-leveldb, Hocuspocus's database
// extension), GC is forced, the peak RSS (VmHWM) is reset, and a fresh client joins: ms from its
// connect to the whole document received (the marker seen), and the peak RSS rise of the server
// during that load and sync (VmHWM after, and VmRSS polled every 10 ms).
import * as Y from 'yjs'
import { LoadClient } from '../../src/loadtest/client.js'
import { largeDocBatches } from '../lib/docs.js'
import { collectAndRead, resetPeak } from '../lib/gc.js'
import { now } from '../../src/loadtest/marks.js'
import type { RunningPeer } from '../lib/peers.js'
import {
  ForeignLoad,
  RssSampler,
  alive,
  cpuSeconds,
  mainThreadCpuSeconds,
  memory,
  waitForQuietDir,
} from '../lib/proc.js'
import { markerText, markerUpdate } from '../lib/seed.js'
import { round } from '../../src/loadtest/stats.js'
import { sleep } from './traffic.js'
import type { Ctx, ScenarioResult } from './types.js'

export interface LargeSize {
  /** text written, MB */
  docMB: number
  /** size of one written message, KB */
  batchKB: number
  /** seconds the fresh client may take to sync */
  timeoutSec: number
  /** the second writer edits once per this many 4 KB appends (more edits: more items) */
  editEvery: number
  /** 1: the fresh client applies what it receives to a Y.Doc before it counts as synced (a provider's work) */
  apply: number
}

const MB = 1024 * 1024

/** `tandem serve` flags the scenario needs at a given document size (documented in bench/README.md). */
export function largeTandemArgs(size: LargeSize): string[] {
  const docBytes = size.docMB * MB
  return [
    // The default (64 MiB) refuses past it; leave room for the encoding's overhead.
    '--max-doc-bytes',
    String(Math.max(64 * MB, Math.ceil(docBytes * 2))),
    '--max-message-bytes',
    String(Math.max(16 * MB, size.batchKB * 1024 * 2)),
    // The per-socket budgets (1 MB/s with a 32 MB burst; 200 messages/s with a burst of 2,000)
    // would make the writer wait, or close it with small --batch-kb.
    '--ws-bytes-per-sec',
    '0',
    '--ws-messages-per-sec',
    '0',
  ]
}

let cached: { key: string; doc: ReturnType<typeof largeDocBatches> } | null = null

/** Returns the result and the restarted peer (the caller stops it). */
export async function runLarge(
  first: RunningPeer,
  size: LargeSize,
  ctx: Ctx,
): Promise<ScenarioResult & { peer: RunningPeer }> {
  const notes: string[] = []
  const key = `${size.docMB}:${size.batchKB}:${size.editEvery}`
  if (cached?.key !== key) {
    ctx.progress(`large: building a ${size.docMB} MB document`)
    cached = { key, doc: largeDocBatches(size.docMB * MB, size.batchKB * 1024, Math.max(1, size.editEvery)) }
  }
  const built = cached.doc
  const docBytes = built.update.length
  const room = 'large-0'
  ctx.progress(
    `large/${first.name}: writing ${(docBytes / MB).toFixed(1)} MB (${built.items} items) in ${built.batches.length} messages`,
  )
  const writer = new LoadClient(9_500_000, await first.target('bench', room, 'writer'), { connectTimeoutMs: 120_000 })
  await writer.connect()
  const svMap = Y.decodeStateVector(Y.encodeStateVectorFromUpdate(built.update))
  const withMarker = markerUpdate(svMap, room)
  const w0 = now()
  for (let i = 0; i < built.batches.length; i++) {
    if (!writer.sendUpdate(built.batches[i]!))
      throw new Error(`writer closed with ${writer.closeCode} ${writer.closeReason} after ${i} messages`)
    if ((i + 1) % 8 === 0) await writer.confirm(withMarker.stateVector, 300_000)
  }
  await writer.sendUpdateAndConfirm(withMarker.update, withMarker.stateVector, 300_000)
  const writeSec = (now() - w0) / 1000
  await writer.close()
  // Debounced stores (Hocuspocus stores on the last disconnect; y-leveldb writes in the background).
  await sleep(3000)
  const settleMs = await waitForQuietDir(first.dataDir)

  ctx.progress(`large/${first.name}: restarting`)
  const r0 = now()
  const peer = await first.restart()
  const restartMs = now() - r0
  await sleep(1000)
  const before = await collectAndRead(peer.pid)
  const peakReset = resetPeak(peer.pid)
  if (!peakReset) notes.push('could not reset VmHWM (/proc/PID/clear_refs): the peak is the 10 ms RSS samples only')
  const foreign = new ForeignLoad(ctx.serverCores ?? null)
  foreign.start()
  const cpu0 = cpuSeconds(peer.pid)
  const main0 = mainThreadCpuSeconds(peer.pid)
  const sampler = new RssSampler(peer.pid, 10)
  sampler.start()
  const applied = size.apply ? new Y.Doc() : undefined
  const reader = new LoadClient(1, await peer.target('bench', room, 'reader'), {
    marker: Buffer.from(markerText(room)),
    connectTimeoutMs: size.timeoutSec * 1000,
    ...(applied ? { applyTo: applied } : {}),
  })
  let syncMs: number | null = null
  try {
    await reader.connect()
    syncMs = reader.syncedAt - reader.startedAt
  } catch (err) {
    notes.push(`the fresh client did not receive the whole document: ${(err as Error).message}`)
  }
  // What the sync leaves running (a store, a log compaction) shows within a moment.
  await sleep(500)
  const serverAlive = alive(peer.pid)
  if (!serverAlive) notes.push('server process died during the load')
  const cpuSec = serverAlive ? cpuSeconds(peer.pid) - cpu0 : NaN
  const mainSec = serverAlive ? mainThreadCpuSeconds(peer.pid) - main0 : NaN
  const foreignLoad = foreign.stop(cpuSec)
  if (foreignLoad !== null && foreignLoad > 0.2)
    notes.push(`other processes used ${(foreignLoad * 100).toFixed(0)}% of the server's core during the load: noisy`)
  const sampled = sampler.stop()
  const hwm = serverAlive ? memory(peer.pid).hwm : 0
  const peak = Math.max(sampled.peak, peakReset ? hwm : 0)
  const rise = peak - before.mem.rss
  // With the document loaded and the reader still there, after a GC: what the server holds for it.
  const after = serverAlive ? await collectAndRead(peer.pid) : null
  const bytesIn = reader.bytesIn
  await reader.close()
  if (applied && syncMs !== null && applied.getText('body').length !== built.chars)
    notes.push(`the client's document has ${applied.getText('body').length} characters, not ${built.chars}`)
  applied?.destroy()
  if (syncMs !== null && bytesIn < docBytes * 0.9)
    notes.push(`the client received ${bytesIn} bytes for a ${docBytes}-byte document`)
  // Tandem alone: the same first load through REST (GET /ydoc, octet-stream) after another restart.
  let rest: { ms: number; riseMB: number; stallMs: number } | null = null
  let last = peer
  if (peer.name.startsWith('tandem') && serverAlive) {
    ctx.progress(`large/${peer.name}: restarting for the REST read`)
    last = await peer.restart()
    await sleep(1000)
    rest = await restFirstRead(last, room, docBytes, notes)
  }
  return {
    peer: last,
    notes,
    metrics: {
      docMB: round(docBytes / MB, 1),
      items: built.items,
      messagesWritten: built.batches.length + 1,
      writeSec: round(writeSec, 2),
      settleSec: round(settleMs / 1000, 1),
      restartMs: round(restartMs, 0),
      syncMs: syncMs === null ? null : round(syncMs, 0),
      riseMB: round(rise / MB, 1),
      riseX: round(rise / docBytes, 2),
      heldMB: after ? round((after.mem.rss - before.mem.rss) / MB, 1) : null,
      heldX: after ? round((after.mem.rss - before.mem.rss) / docBytes, 2) : null,
      rssBeforeMB: round(before.mem.rss / MB, 1),
      peakRssMB: round(peak / MB, 1),
      serverCpuSec: round(cpuSec, 2),
      serverMainThreadCpuSec: round(mainSec, 2),
      clientBytesIn: bytesIn,
      restGetMs: rest ? rest.ms : null,
      restRiseMB: rest ? rest.riseMB : null,
      restStallMs: rest ? rest.stallMs : null,
      foreignLoadServerCore: foreignLoad,
    },
  }
}

/**
 * ms of a first GET /ydoc (octet-stream) of the document after a restart, the peak RSS rise
 * meanwhile, and the longest /healthz answer on the same listener while it ran: how long every
 * other client of the process waited at worst.
 */
async function restFirstRead(
  peer: RunningPeer,
  room: string,
  docBytes: number,
  notes: string[],
): Promise<{ ms: number; riseMB: number; stallMs: number } | null> {
  const before = await collectAndRead(peer.pid)
  const peakReset = resetPeak(peer.pid)
  const sampler = new RssSampler(peer.pid, 10)
  sampler.start()
  const t = await peer.target('bench', room, 'rest-reader')
  const t0 = now()
  let reading = true
  let stallMs = 0
  const probe = (async () => {
    while (reading) {
      const p0 = now()
      await fetch(`http://127.0.0.1:${peer.port}/healthz`).then((r) => r.arrayBuffer())
      stallMs = Math.max(stallMs, now() - p0)
      await sleep(10)
    }
  })()
  try {
    const res = await fetch(
      `http://127.0.0.1:${peer.port}/ydoc/v1/bench/${room}?yauth=${encodeURIComponent(t.token)}`,
      { headers: { accept: 'application/octet-stream' } },
    )
    const body = new Uint8Array(await res.arrayBuffer())
    const ms = now() - t0
    reading = false
    await probe
    const peak = Math.max(sampler.stop().peak, peakReset ? memory(peer.pid).hwm : 0)
    if (res.status !== 200 || body.length < docBytes * 0.9) {
      notes.push(`REST GET /ydoc answered ${res.status} with ${body.length} bytes`)
      return null
    }
    return { ms: round(ms, 0), riseMB: round((peak - before.mem.rss) / MB, 1), stallMs: round(stallMs, 0) }
  } catch (err) {
    reading = false
    await probe.catch(() => undefined)
    sampler.stop()
    notes.push(`REST GET /ydoc failed: ${(err as Error).message}`)
    return null
  }
}
