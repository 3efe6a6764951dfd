// One load generator's share of the clients (all of them with one worker): connects them, sends
// what the scenario says between the start and end times the coordinator gives, renews tokens in
// band, and reports cumulative counts plus the latency samples new since its last report.
import { renewDelayMs } from '@tandem/client'
import { LoadClient } from './client.js'
import { Tally } from './tally.js'
import { pool } from './pool.js'
import { Schedule } from './schedule.js'
import { now } from './marks.js'
import type { LoadtestOptions } from './options.js'
import { Samples } from './stats.js'
import { apiTarget, clientTarget, signingTarget, type Target } from './targets.js'

export interface ShardSpec {
  options: LoadtestOptions
  /** api target: the assets resolved by the coordinator, one room each */
  assets: string[] | null
  shard: number
  shards: number
}

export interface Snapshot {
  /** every send of the window is made and counted here: `sent` and the expected counts are final */
  loadOver: boolean
  connected: number
  connectFailed: number
  sent: number
  awarenessSent: number
  expected: number
  awarenessExpected: number
  delivered: number
  awarenessDelivered: number
  /** sockets closed under load, by close code (1006: dropped without a close frame) */
  closes: Record<string, number>
  /** failures by message: connects refused or timed out, permission denied, renewals */
  errors: Record<string, number>
  /** samples since the previous snapshot (ms) */
  latency: number[]
  awarenessLatency: number[]
  connect: number[]
}

export interface ShardControl {
  report(kind: 'tick' | 'connected' | 'done', s: Snapshot): void
  /** resolves with the window (epoch ms) once every shard connected */
  window(): Promise<{ at: number; until: number }>
  /** resolves when the coordinator ends the run (after the drain, or on Ctrl-C) */
  stopped: Promise<void>
}

const KEYSTROKE_MS = 150
/** presence: what an idle provider does (y-protocols renews its state every 15 s), and writers per room */
const PRESENCE_RENEW_MS = 15_000
const PRESENCE_WRITERS = 2

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)))

export async function runShard(spec: ShardSpec, ctl: ShardControl): Promise<void> {
  const o = spec.options
  const target: Target =
    o.target.kind === 'signing' ? await signingTarget(o.target, o.rooms) : apiTarget(o.target, spec.assets!)
  const mine = Array.from({ length: o.clients }, (_, i) => i).filter((i) => i % spec.shards === spec.shard)
  const roomOf = (i: number) => i % target.rooms
  const roomSize = (r: number) => Math.floor(o.clients / target.rooms) + (r < o.clients % target.rooms ? 1 : 0)
  const tally = new Tally()
  tally.since = Infinity // nothing counts before the window opens
  const connectTimes = new Samples()
  const clients: LoadClient[] = []
  const errors: Record<string, number> = {}
  const error = (msg: string) => (errors[msg] = (errors[msg] ?? 0) + 1)
  const cursors = { latency: 0, awareness: 0, connect: 0 }
  let connectFailed = 0
  const schedule = new Schedule()
  void ctl.stopped.then(() => schedule.stop())
  const later = (ms: number, fn: () => void) => schedule.later(ms, fn)
  // Send schedules still running. A snapshot taken after the window closed may still precede a
  // late timer's send: the coordinator drains on loadOver, which is only set after every send.
  let running = 1 // the setup's own, released once every schedule started
  let loadOver = false
  const ended = () => {
    if (--running > 0 || schedule.stopped) return
    loadOver = true
    ctl.report('tick', snapshot())
  }

  const snapshot = (): Snapshot => {
    let sent = 0
    let awarenessSent = 0
    let expected = 0
    let awarenessExpected = 0
    const closes: Record<string, number> = {}
    for (const c of clients) {
      sent += c.sent
      awarenessSent += c.awarenessSent
      const others = roomSize(roomOf(c.id)) - 1
      expected += c.sent * others
      awarenessExpected += c.awarenessSent * others
      if (c.closed) closes[c.closeCode] = (closes[c.closeCode] ?? 0) + 1
    }
    const s: Snapshot = {
      loadOver,
      connected: clients.filter((c) => c.open).length,
      connectFailed,
      sent,
      awarenessSent,
      expected,
      awarenessExpected,
      delivered: tally.delivered,
      awarenessDelivered: tally.awarenessDelivered,
      closes,
      errors: { ...errors },
      latency: tally.updateLatency.since(cursors.latency),
      awarenessLatency: tally.awarenessLatency.since(cursors.awareness),
      connect: connectTimes.since(cursors.connect),
    }
    cursors.latency += s.latency.length
    cursors.awareness += s.awarenessLatency.length
    cursors.connect += s.connect.length
    return s
  }
  const ticker = setInterval(() => ctl.report('tick', snapshot()), 1000)

  // Renew each client's token before it expires, on the open socket.
  const renew = (c: LoadClient, expiresAtMs: number) => {
    later(renewDelayMs(expiresAtMs, Date.now()), () => {
      target.token(roomOf(c.id), c.id).then(
        (t) => {
          if (c.refreshToken(t.token)) renew(c, t.expiresAtMs)
        },
        (e: Error) => {
          error(`token renewal failed: ${e.message}`)
          renew(c, Date.now() + 10_000) // again in 5 s
        },
      )
    })
  }

  await pool(mine, o.concurrency, async (i) => {
    if (schedule.stopped) return
    const t = await target.token(roomOf(i), i).catch((e: Error) => e)
    if (t instanceof Error) {
      connectFailed++
      error(`token: ${t.message}`)
      return
    }
    const addr = o.sourceAddresses.length ? o.sourceAddresses[i % o.sourceAddresses.length] : undefined
    const c = new LoadClient(i, clientTarget(t, o.protocol), {
      tally,
      connectTimeoutMs: o.connectTimeoutSec * 1000,
      ...(addr ? { localAddress: addr } : {}),
    })
    try {
      await c.connect()
      clients.push(c)
      connectTimes.add(c.syncedAt - c.startedAt)
      renew(c, t.expiresAtMs)
    } catch (e) {
      connectFailed++
      error((e as Error).message)
      await c.close()
    }
  })
  ctl.report('connected', snapshot())

  const { at, until } = await ctl.window()
  tally.since = at
  const load = (c: LoadClient) => {
    if (o.scenario === 'typing') {
      // Bursts of one-character edits about 150 ms apart, an awareness update (cursor) with every
      // other one, then a pause that brings the average to --rate keystrokes per second.
      const burst = async () => {
        const k = 3 + Math.floor(Math.random() * 10)
        for (let j = 0; j < k && !schedule.stopped && now() < until; j++) {
          c.sendMark()
          if (j % 2 === 0) c.sendAwareness()
          await sleep(KEYSTROKE_MS * (0.6 + Math.random() * 0.8))
        }
        const pause = Math.max(0, (k / o.rate - (k * KEYSTROKE_MS) / 1000) * 1000) * (0.5 + Math.random())
        if (now() + pause < until) later(pause, () => void burst())
        else ended()
      }
      running++
      schedule.at(at + Math.random() * 1000, () => void burst())
      return
    }
    const every = (periodMs: number, fire: () => void) => {
      running++
      schedule.every(at, until, periodMs, fire, ended)
    }
    if (o.scenario === 'presence') {
      // the room's k-th client: a cursor, a writer (renewing its state), or idle renewing every 15 s
      const k = Math.floor(c.id / target.rooms)
      if (k < o.active) {
        if (o.awarenessHz > 0) every(1000 / o.awarenessHz, () => c.sendAwareness())
        return
      }
      every(PRESENCE_RENEW_MS, () => c.sendAwareness())
      if (k < o.active + PRESENCE_WRITERS && o.rate > 0) every(1000 / o.rate, () => c.sendMark())
      return
    }
    if (o.rate > 0) every(1000 / o.rate, () => c.sendMark())
    if (o.awarenessHz > 0) every(1000 / o.awarenessHz, () => c.sendAwareness())
  }
  if (o.scenario !== 'storm') for (const c of clients) load(c)
  ended()
  await ctl.stopped
  clearInterval(ticker)
  schedule.stop()
  for (const c of clients) if (c.error?.startsWith('permission denied')) error(c.error)
  const last = snapshot()
  await pool(clients, 500, (c) => c.close())
  ctl.report('done', last)
}
