// Presence in one big room (issue 39): N observers, A of them moving a cursor at H Hz, the rest idle
// renewing their state every 15 s (as providers do), W typing writers (document updates). Reports
// server CPU as a share of its core, awareness and doc-update p50/p99, whether every observer ends
// with every client's final state, sockets closed under load, and the load generator's CPU. Every
// client sends its state once before the window, so the room holds N states as a real one does.
import { LoadClient } from '../../src/loadtest/client.js'
import { now } from '../../src/loadtest/marks.js'
import { pool } from '../../src/loadtest/pool.js'
import { PresenceView } from '../../src/loadtest/presence-view.js'
import { Schedule } from '../../src/loadtest/schedule.js'
import { round } from '../../src/loadtest/stats.js'
import { Tally } from '../../src/loadtest/tally.js'
import type { RunningPeer } from '../lib/peers.js'
import { ServerWindow } from '../lib/window.js'
import { sleep } from './traffic.js'
import type { Ctx, Metrics, ScenarioResult } from './types.js'

export interface PresenceSize {
  observers: number
  /** clients moving a cursor (0: a room without cursors, the doc-update baseline) */
  active: number
  /** cursor moves per second per active client */
  awarenessHz: number
  /** seconds between an idle client's renewals (0: idle clients send nothing) */
  renewSec: number
  writers: number
  /** document updates per second per writer */
  rate: number
  durationSec: number
  drainSec: number
  connectConcurrency: number
}

const MB = 1024 * 1024

export async function runPresence(peer: RunningPeer, size: PresenceSize, ctx: Ctx): Promise<ScenarioResult> {
  const notes: string[] = []
  const n = size.observers
  const tally = new Tally()
  tally.since = Infinity
  const view = new PresenceView(n)
  const clients: LoadClient[] = []
  for (let i = 0; i < n; i++) {
    clients.push(
      new LoadClient(i, await peer.target('bench', 'presence-0', `u${i}`), {
        tally,
        onAwareness: (u, recv) => view.saw(i, u, recv),
      }),
    )
  }
  const cursors = size.active > 0 || size.renewSec > 0
  const isActive = (i: number) => i < size.active
  const isWriter = (i: number) => i >= size.active && i < size.active + size.writers

  ctx.progress(`presence/${peer.name}: connecting ${n} clients to one room`)
  const connected = await pool(clients, size.connectConcurrency, async (c) => {
    await c.connect()
    if (cursors) c.sendAwareness() // the room holds everyone's state before the window
  })
  const failed = connected.filter((r) => r.status === 'rejected').length
  if (failed) notes.push(`${failed} of ${n} clients failed to connect`)
  await sleep(2000)

  tally.since = now()
  view.since = tally.since
  const window = new ServerWindow(peer.pid, ctx.serverCores ?? null)
  const start = window.start
  const end = start + size.durationSec * 1000
  const schedule = new Schedule()
  const every = (period: number, fire: () => void): void => schedule.every(start, end, period, fire)
  clients.forEach((c, i) => {
    if (isActive(i) && size.awarenessHz > 0) every(1000 / size.awarenessHz, () => c.sendAwareness())
    else if (!isActive(i) && size.renewSec > 0) every(size.renewSec * 1000, () => c.sendAwareness())
    if (isWriter(i) && size.rate > 0) every(1000 / size.rate, () => c.sendMark())
  })
  const progress = setInterval(
    () =>
      ctx.progress(
        `presence/${peer.name}: ${((now() - start) / 1000).toFixed(0)} s, doc ${tally.delivered}, awareness samples ${view.latency.count}`,
      ),
    2000,
  )
  await sleep(end - now())
  schedule.stop()
  const sendEnd = now()

  const open = () => clients.map((c, i) => (c.open ? i : -1)).filter((i) => i >= 0)
  const finals = () => Int32Array.from(clients, (c) => c.awarenessSent)
  const expectedDoc = () => clients.reduce((a, c) => a + c.sent, 0) * (n - 1)
  let agreement = view.agreement(finals(), open())
  while (now() < sendEnd + size.drainSec * 1000) {
    agreement = view.agreement(finals(), open())
    if (agreement.right === agreement.pairs && tally.delivered >= expectedDoc()) break
    await sleep(250)
  }
  clearInterval(progress)
  const { serverAlive, cpuSec, foreignLoad, loadCpu, wallSec, rss, memEnd } = window.stop()
  if (!serverAlive) notes.push('server process died during the run')
  const closes: Record<string, number> = {}
  for (const c of clients) if (c.closed && c.syncedAt > 0) closes[c.closeCode] = (closes[c.closeCode] ?? 0) + 1
  const closed = Object.values(closes).reduce((a, b) => a + b, 0)
  if (closed) notes.push(`${closed} sockets closed under load: ${JSON.stringify(closes)}`)

  ctx.progress(`presence/${peer.name}: closing ${n} clients`)
  await pool(clients, 500, (c) => c.close())

  const doc = tally.updateLatency.summary()
  const aw = view.latency.summary()
  if (foreignLoad !== null && foreignLoad > 0.2)
    notes.push(`other processes used ${(foreignLoad * 100).toFixed(0)}% of the server's core during the window: noisy`)
  if (loadCpu > 0.9)
    notes.push(`load generator used ${(loadCpu * 100).toFixed(0)}% of its core: latency includes client-side queueing`)
  const metrics: Metrics = {
    observers: n,
    active: size.active,
    connectFailures: failed,
    serverCpuPct: round((cpuSec / wallSec) * 100, 1),
    serverCpuSec: round(cpuSec, 2),
    awarenessP50Ms: aw.p50,
    awarenessP99Ms: aw.p99,
    awarenessMaxMs: aw.max,
    awarenessSamples: aw.n,
    latencyP50Ms: doc.p50,
    latencyP99Ms: doc.p99,
    docDeliveryRatio: expectedDoc() ? round(tally.delivered / expectedDoc(), 4) : null,
    finalStatesRight: agreement.pairs ? round(agreement.right / agreement.pairs, 4) : null,
    closes: closed,
    drainMs: round(now() - sendEnd, 0),
    loadGenCpu: round(loadCpu, 2),
    serverRssMB: round(memEnd.rss / MB, 1),
    serverPeakRssMB: round(Math.max(rss.peak, memEnd.hwm) / MB, 1),
    foreignLoadServerCore: foreignLoad,
  }
  return { metrics, notes }
}
