// Named leases in Redis, for work that must run on one node of the cluster at a time. A lease is
// a key set with NX and a TTL to a random token; the holder renews it every ttl/3 with a script that
// extends it only while the token is still its own, and releases it the same way. A holder that
// dies stops renewing, so the key expires and another node takes over. Leases save duplicate work;
// correctness never depends on them (no fencing): every job they guard is safe to run twice.
import { randomBytes } from 'node:crypto'
import type { Logger } from '../infra/log.js'
import { keys } from './keys.js'
import type { ClusterMetrics } from './metrics.js'
import { atMost, describeRedisError, runScript, type RedisClient } from './redis.js'

const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`
// Due when at least ARGV[1] ms (Redis server time, one clock for every node) passed since the last run.
const DUE = `
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local last = tonumber(redis.call('get', KEYS[1]) or '0')
if now - last >= tonumber(ARGV[1]) then return now else return -1 end`
const RECORD = `if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('set', KEYS[2], ARGV[2]) return 1 else return 0 end`

export interface Lease {
  readonly name: string
  /** aborts when the lease is lost (renewal refused, or not confirmed in time): stop the work */
  readonly signal: AbortSignal
  release(): Promise<void>
}

export interface LeasesOptions {
  nodeId: string
  log: Logger
  metrics?: ClusterMetrics
}

export type RunOutcome = 'ran' | 'held' | 'not-due' | 'failed'

export class Leases {
  private readonly held = new Set<HeldLease>()
  private readonly schedules = new Set<NodeJS.Timeout>()
  private closed = false

  constructor(
    private readonly redis: RedisClient,
    private readonly o: LeasesOptions,
  ) {}

  /** Takes the lease if nobody holds it; null if another holder does (or Redis is unreachable). */
  async tryAcquire(name: string, ttlMs: number): Promise<Lease | null> {
    if (this.closed) return null
    const token = `${this.o.nodeId}:${randomBytes(12).toString('base64url')}`
    const sentAt = performance.now()
    let reply: string | null
    try {
      reply = await this.redis.set(keys.lease(name), token, {
        condition: 'NX',
        expiration: { type: 'PX', value: ttlMs },
      })
    } catch (err) {
      this.o.log.debug({ lease: name, err: describeRedisError(err) }, 'lease: acquire failed')
      return null
    }
    if (reply !== 'OK') return null
    const lease = new HeldLease(this, name, token, ttlMs, sentAt)
    this.held.add(lease)
    this.o.metrics?.leaseHeld.set(this.held.size)
    return lease
  }

  /** @internal renewal and release, by HeldLease */
  async eval(script: string, keyNames: string[], args: string[]): Promise<number> {
    return Number(await runScript(this.redis, script, keyNames, args))
  }

  /** @internal */
  dropped(lease: HeldLease): void {
    this.held.delete(lease)
    this.o.metrics?.leaseHeld.set(this.held.size)
  }

  get log(): Logger {
    return this.o.log
  }

  /**
   * One run of cluster-wide periodic work: the node that wins the job's lease runs `fn` if at
   * least everyMs passed (Redis time) since the last completed run anywhere in the cluster.
   */
  async runOnce(
    name: string,
    everyMs: number,
    fn: (signal: AbortSignal) => Promise<void>,
    ttlMs = 30_000,
  ): Promise<RunOutcome> {
    const lease = await this.tryAcquire(`job:${name}`, ttlMs)
    if (!lease) return 'held'
    try {
      const now = await this.eval(DUE, [keys.lastRun(name)], [String(everyMs)])
      if (now < 0) return 'not-due'
      try {
        await fn(lease.signal)
      } catch (err) {
        this.o.log.error({ job: name, err }, 'cluster job failed; another run will retry it')
        return 'failed'
      }
      // Recorded only while still the holder: a run that lost its lease midway is not a run.
      if (lease.signal.aborted) return 'failed'
      await this.eval(
        RECORD,
        [keys.lease(`job:${name}`), keys.lastRun(name)],
        [(lease as HeldLease).token, String(now)],
      )
      return 'ran'
    } catch (err) {
      this.o.log.warn({ job: name, err: describeRedisError(err) }, 'cluster job: Redis unreachable')
      return 'failed'
    } finally {
      await lease.release()
    }
  }

  /**
   * Runs `fn` about every everyMs somewhere in the cluster: every node checks every checkMs
   * (jittered so nodes do not collide) and runOnce decides. Stopped by close().
   */
  every(
    name: string,
    everyMs: number,
    fn: (signal: AbortSignal) => Promise<void>,
    checkMs = Math.min(everyMs, 60_000),
  ): void {
    const tick = () => {
      if (this.closed) return
      void this.runOnce(name, everyMs, fn).finally(() => {
        this.schedules.delete(timer)
        if (!this.closed) schedule()
      })
    }
    let timer: NodeJS.Timeout
    const schedule = () => {
      timer = setTimeout(tick, checkMs * (0.75 + Math.random() * 0.5))
      timer.unref()
      this.schedules.add(timer)
    }
    schedule()
  }

  /** Stops the schedules and releases every lease held (shutdown), so others take over at once. */
  async close(): Promise<void> {
    this.closed = true
    for (const t of this.schedules) clearTimeout(t)
    this.schedules.clear()
    await Promise.all([...this.held].map((l) => l.release()))
  }
}

class HeldLease implements Lease {
  private readonly abort = new AbortController()
  private readonly timer: NodeJS.Timeout
  /** fires when no renewal was confirmed for 2/3 of the TTL: it may expire soon, stop first */
  private watchdog: NodeJS.Timeout
  private renewing = false
  private released = false

  constructor(
    private readonly owner: Leases,
    readonly name: string,
    readonly token: string,
    private readonly ttlMs: number,
    sentAt: number,
  ) {
    this.watchdog = this.armWatchdog(sentAt)
    this.timer = setInterval(() => void this.renew(), Math.max(10, Math.floor(ttlMs / 3)))
    this.timer.unref()
  }

  get signal(): AbortSignal {
    return this.abort.signal
  }

  /**
   * Counted from when the confirmed write was sent (Redis started its TTL later), and independent
   * of any reply: a command stuck in a client's offline queue must not keep a holder working.
   */
  private armWatchdog(sentAt: number): NodeJS.Timeout {
    const t = setTimeout(
      () => this.lost('not renewed in time'),
      Math.max(0, sentAt + (this.ttlMs * 2) / 3 - performance.now()),
    )
    t.unref()
    return t
  }

  private async renew(): Promise<void> {
    if (this.released || this.renewing) return
    this.renewing = true
    const sentAt = performance.now()
    try {
      const ok = await this.owner.eval(RENEW, [keys.lease(this.name)], [this.token, String(this.ttlMs)])
      if (this.released) return
      if (ok !== 1) return this.lost('taken over or expired')
      clearTimeout(this.watchdog)
      this.watchdog = this.armWatchdog(sentAt)
    } catch {
      // Unconfirmed: the watchdog decides when it may no longer be ours.
    } finally {
      this.renewing = false
    }
  }

  private lost(why: string): void {
    if (this.released) return
    this.owner.log.warn({ lease: this.name, why }, 'lease lost; stopping its work')
    this.stop()
    this.abort.abort(new Error(`lease ${this.name} lost: ${why}`))
  }

  private stop(): void {
    this.released = true
    clearInterval(this.timer)
    clearTimeout(this.watchdog)
    this.owner.dropped(this)
  }

  async release(): Promise<void> {
    if (this.released) return
    this.stop()
    // Best effort: if Redis is gone, the key expires by itself.
    await atMost(this.owner.eval(RELEASE, [keys.lease(this.name)], [this.token]), 1_000)
  }
}
