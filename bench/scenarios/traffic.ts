// Steady traffic: R rooms x C clients, each sending marked updates at a set rate (and, for presence,
// awareness states), for a fixed time. Every client is connected and synced before sending starts;
// after sending stops the run drains until every expected delivery arrived or the drain time ends.
import { LoadClient } from '../../src/loadtest/client.js'
import { Tally } from '../../src/loadtest/tally.js'
import { pool } from '../../src/loadtest/pool.js'
import { now } from '../../src/loadtest/marks.js'
import type { RunningPeer } from '../lib/peers.js'
import { memory } from '../lib/proc.js'
import { ServerWindow } from '../lib/window.js'
import { Schedule } from '../../src/loadtest/schedule.js'
import { round } from '../../src/loadtest/stats.js'
import type { Ctx, Metrics, ScenarioResult } from './types.js'

export interface TrafficSize {
  rooms: number
  clientsPerRoom: number
  /** document updates per second per client */
  rate: number
  /** awareness updates per second per client (0 = none) */
  awarenessHz: number
  durationSec: number
  drainSec: number
  connectConcurrency: number
  /**
   * Seconds of the same traffic before the window, not measured (0 or absent: none): the window then shows a server
   * past its warm-up (code compiled, rooms' paths taken once), as one that has run for a while is.
   */
  warmupSec?: number
}

const MB = 1024 * 1024

export async function runTraffic(
  name: string,
  peer: RunningPeer,
  size: TrafficSize,
  ctx: Ctx,
): Promise<ScenarioResult> {
  const notes: string[] = []
  const tally = new Tally()
  const total = size.rooms * size.clientsPerRoom
  const clients: LoadClient[] = []
  for (let r = 0; r < size.rooms; r++) {
    for (let c = 0; c < size.clientsPerRoom; c++) {
      const id = r * size.clientsPerRoom + c
      clients.push(new LoadClient(id, await peer.target('bench', `${name}-${r}`, `u${id}`), { tally }))
    }
  }
  const mem0 = memory(peer.pid)

  ctx.progress(`connecting ${total} clients to ${size.rooms} room(s)`)
  const t0 = now()
  const connected = await pool(clients, size.connectConcurrency, (c) => c.connect())
  const connectMs = now() - t0
  const failed = connected.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]
  if (failed.length)
    notes.push(
      `${failed.length} of ${total} clients failed to connect (first: ${String((failed[0]!.reason as Error).message)})`,
    )
  await sleep(500)
  if (size.warmupSec) await warmUp(peer, clients, size, tally, ctx)
  const memConnected = memory(peer.pid)

  // Measurement window.
  tally.since = now()
  const window = new ServerWindow(peer.pid, ctx.serverCores ?? null)
  const start = window.start
  const end = start + size.durationSec * 1000
  const sends = scheduleSends(clients, size, start, end)
  const expectedOf = (): { updates: number; awareness: number } => {
    let updates = 0
    let awareness = 0
    for (const c of clients) {
      updates += c.sent * (size.clientsPerRoom - 1)
      awareness += c.awarenessSent * (size.clientsPerRoom - 1)
    }
    return { updates, awareness }
  }
  const progress = setInterval(() => {
    const s = (now() - start) / 1000
    const e = expectedOf()
    ctx.progress(
      `${name}/${peer.name}: ${s.toFixed(0)} s, delivered ${tally.delivered}/${e.updates}` +
        (size.awarenessHz ? `, awareness ${tally.awarenessDelivered}/${e.awareness}` : ''),
    )
  }, 2000)
  await sleep(end - now())
  sends.stop()
  const sendEnd = now()
  const drainUntil = sendEnd + size.drainSec * 1000
  while (now() < drainUntil) {
    const e = expectedOf()
    if (tally.delivered >= e.updates && tally.awarenessDelivered >= e.awareness) break
    await sleep(100)
  }
  clearInterval(progress)
  const drainMs = now() - sendEnd
  const { serverAlive, cpuSec, mainSec, foreignLoad, loadCpu, rss, memEnd } = window.stop()
  if (!serverAlive) notes.push('server process died during the run')

  const openAtEnd = clients.filter((c) => c.open).length
  if (openAtEnd < total - failed.length)
    notes.push(`${total - failed.length - openAtEnd} sockets closed during the run`)
  const errs = clients.filter((c) => c.error && c.open)
  if (errs.length) notes.push(`${errs.length} clients saw errors (first: ${errs[0]!.error})`)

  ctx.progress(`closing ${total} clients`)
  await pool(clients, 500, (c) => c.close())

  const expected = expectedOf()
  const sent = clients.reduce((a, c) => a + c.sent, 0)
  const lat = tally.updateLatency.summary()
  if (foreignLoad !== null && foreignLoad > 0.2)
    notes.push(`other processes used ${(foreignLoad * 100).toFixed(0)}% of the server's core during the window: noisy`)
  if (loadCpu > 0.9)
    notes.push(`load generator used ${(loadCpu * 100).toFixed(0)}% of its core: latency includes client-side queueing`)
  const metrics: Metrics = {
    clients: total,
    connectFailures: failed.length,
    connectPerSec: round((total - failed.length) / (connectMs / 1000), 1),
    sent,
    expected: expected.updates,
    delivered: tally.delivered,
    deliveryRatio: expected.updates ? round(tally.delivered / expected.updates, 4) : null,
    deliveredPerSec: round(tally.delivered / size.durationSec, 1),
    latencyP50Ms: lat.p50,
    latencyP90Ms: lat.p90,
    latencyP99Ms: lat.p99,
    latencyMaxMs: lat.max,
    duplicates: tally.duplicates,
    serverCpuSec: round(cpuSec, 2),
    serverMainThreadCpuSec: round(mainSec, 2),
    cpuSecPer1kDeliveries: tally.delivered ? round((cpuSec * 1000) / tally.delivered, 5) : null,
    deliveriesPerCpuSec: cpuSec > 0 ? round(tally.delivered / cpuSec, 0) : null,
    serverRssMB: round(memEnd.rss / MB, 1),
    serverRssMeanMB: round(rss.mean / MB, 1),
    serverPeakRssMB: round(Math.max(rss.peak, memEnd.hwm) / MB, 1),
    rssPerConnKB:
      total - failed.length ? round((memConnected.rss - mem0.rss) / 1024 / (total - failed.length), 2) : null,
    drainMs: round(drainMs, 0),
    loadGenCpu: round(loadCpu, 2),
    foreignLoadServerCore: foreignLoad,
  }
  if (size.awarenessHz > 0) {
    const al = tally.awarenessLatency.summary()
    Object.assign(metrics, {
      awarenessSent: clients.reduce((a, c) => a + c.awarenessSent, 0),
      awarenessExpected: expected.awareness,
      awarenessDelivered: tally.awarenessDelivered,
      awarenessRatio: expected.awareness ? round(tally.awarenessDelivered / expected.awareness, 4) : null,
      awarenessP50Ms: al.p50,
      awarenessP99Ms: al.p99,
      awarenessMaxMs: al.max,
      cpuSecPer1kMessages:
        tally.delivered + tally.awarenessDelivered
          ? round((cpuSec * 1000) / (tally.delivered + tally.awarenessDelivered), 5)
          : null,
    })
  }
  const ratio = metrics.deliveryRatio
  if (typeof ratio === 'number' && ratio < 1) notes.push(`delivery ratio ${ratio} (< 1)`)
  return { metrics, notes }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)))
}

/**
 * The scenario's sends for `warmupSec`, counted nowhere; it ends once the server answered each
 * client's step 1 (every warm-up update applied), and the clients' send counts start again at 0.
 */
async function warmUp(
  peer: RunningPeer,
  clients: LoadClient[],
  size: TrafficSize,
  tally: Tally,
  ctx: Ctx,
): Promise<void> {
  ctx.progress(`warming up for ${size.warmupSec} s (not measured)`)
  tally.since = Infinity
  const end = now() + size.warmupSec! * 1000
  const sends = scheduleSends(clients, size, now(), end)
  await sleep(end - now())
  sends.stop()
  // the bare relay answers no step 1 (it keeps no document): what it relays is out within a second
  if (peer.name === 'relay') await sleep(1000)
  else await pool(clients, size.connectConcurrency, (c) => c.confirm())
  for (const c of clients) {
    c.sent = 0
    c.awarenessSent = 0
  }
}

/** Every client's marked updates (and awareness) at the scenario's rates, from `start` to `end`. */
function scheduleSends(clients: LoadClient[], size: TrafficSize, start: number, end: number): Schedule {
  const sends = new Schedule()
  for (const c of clients) {
    if (size.rate > 0) sends.every(start, end, 1000 / size.rate, () => c.sendMark())
    if (size.awarenessHz > 0) sends.every(start, end, 1000 / size.awarenessHz, () => c.sendAwareness())
  }
  return sends
}
