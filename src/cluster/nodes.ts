// Node membership: every node writes a heartbeat key with a TTL and lists itself in a set; every
// node polls the set and reports a node it has seen live whose heartbeat has lapsed (dead, or cut
// off from Redis), so its clients' awareness can be removed and followed documents resynced.
// Expiry is Redis' clock, so node clocks need not agree. Heartbeat and poll are one script on one
// timer: one round trip a tick, where they were three (the write, the set, the keys).
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { Logger } from '../infra/log.js'
import { keys } from './keys.js'
import type { ClusterMetrics } from './metrics.js'
import { atMost, describeRedisError, runScript, type RedisClient } from './redis.js'

/**
 * KEYS[1]: this node's heartbeat, KEYS[2]: the node set; ARGV: node id, payload, TTL ms ('' to
 * skip the heartbeat), '1' to poll, heartbeat key prefix. Returns {1 if the heartbeat was still
 * there (or not written), the live node ids}; ids whose heartbeat expired leave the set.
 */
const TICK = `
local had = 1
if ARGV[3] ~= '' then
  if not redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3], 'GET') then had = 0 end
  redis.call('SADD', KEYS[2], ARGV[1])
end
local live = {}
if ARGV[4] == '1' then
  local ids = redis.call('SMEMBERS', KEYS[2])
  if #ids > 0 then
    local names = {}
    for i, id in ipairs(ids) do names[i] = ARGV[5] .. id end
    local beats = redis.call('MGET', unpack(names))
    for i, id in ipairs(ids) do
      if beats[i] then live[#live + 1] = id else redis.call('SREM', KEYS[2], id) end
    end
  end
end
return {had, live}`

/** A node id: random per process start (nothing to configure per node), readable in logs. */
export function newNodeId(): string {
  return `${
    hostname()
      .replace(/[^A-Za-z0-9.-]/g, '')
      .slice(0, 32) || 'node'
  }-${process.pid}-${randomBytes(4).toString('hex')}`
}

export interface NodesOptions {
  nodeId: string
  log: Logger
  metrics?: ClusterMetrics
  /** ms a heartbeat stays valid without renewal */
  ttlMs?: number
  /** ms between heartbeats (well under ttlMs, so one lost heartbeat is not a death) */
  everyMs?: number
  /** ms between polls of the other nodes */
  pollMs?: number
  /** a node seen live has lapsed */
  onLapse?: (nodeId: string) => void
  /** this node's own heartbeat had expired before a renewal (others may have seen it lapse) */
  onRevived?: () => void
  /** what this node says about itself (shown by `tandem admin` or debugging) */
  info?: Record<string, unknown>
}

export class NodeMembership {
  private liveSet = new Set<string>()
  private readonly timer: NodeJS.Timeout
  private stopped = false
  /** the tick in flight: one at a time, so lapses are judged in order */
  private ticking: Promise<void> | null = null
  /** a heartbeat was written before: a missing key at the next one means it lapsed */
  private beaten = false
  private lastBeat = -Infinity
  private lastPoll = -Infinity
  private readonly ttlMs: number
  private readonly everyMs: number
  private readonly pollMs: number
  private readonly payload: string

  /** Writes the first heartbeat (so a start against an unreachable Redis fails), polls once, starts the timer. */
  static async start(redis: RedisClient, o: NodesOptions): Promise<NodeMembership> {
    const m = new NodeMembership(redis, o)
    try {
      await m.tick(true, true)
    } catch (err) {
      await m.stop({ deregister: false })
      throw err
    }
    return m
  }

  private constructor(
    private readonly redis: RedisClient,
    private readonly o: NodesOptions,
  ) {
    this.ttlMs = o.ttlMs ?? 10_000
    this.everyMs = o.everyMs ?? 2_000
    this.pollMs = o.pollMs ?? 2_000
    this.payload = JSON.stringify({ id: o.nodeId, pid: process.pid, startedAt: Date.now(), ...o.info })
    // One timer at the shorter period; each tick does what is due (with the defaults, both).
    const every = Math.min(this.everyMs, this.pollMs)
    const due = (last: number, period: number) => performance.now() - last >= period - every / 2
    this.timer = setInterval(() => {
      if (this.ticking) return // Redis is slow: this tick's work waits for the next
      this.tick(due(this.lastBeat, this.everyMs), due(this.lastPoll, this.pollMs)).catch((err) =>
        this.o.log.debug({ err: describeRedisError(err) }, 'nodes: heartbeat or poll failed'),
      )
    }, every)
    this.timer.unref()
  }

  get nodeId(): string {
    return this.o.nodeId
  }

  /** Nodes live at the last poll, this one included. */
  live(): string[] {
    return [...this.liveSet].sort()
  }

  isLive(nodeId: string): boolean {
    return this.liveSet.has(nodeId)
  }

  /** Reads who is live now (and reports lapses); also run by the timer. */
  async poll(): Promise<void> {
    while (this.ticking) await this.ticking.catch(() => undefined)
    await this.tick(false, true)
  }

  private tick(beat: boolean, poll: boolean): Promise<void> {
    if (this.stopped || (!beat && !poll)) return Promise.resolve()
    const sentAt = performance.now()
    const run = runScript(
      this.redis,
      TICK,
      [keys.node(this.o.nodeId), keys.nodes],
      [this.o.nodeId, this.payload, beat ? String(this.ttlMs) : '', poll ? '1' : '', keys.node('')],
    )
      .then((reply) => {
        const [had, live] = reply as [number, string[]]
        if (beat) this.afterBeat(Number(had) === 1, sentAt)
        if (poll) this.afterPoll(live.map(String), sentAt)
      })
      .finally(() => {
        if (this.ticking === run) this.ticking = null
      })
    this.ticking = run
    return run
  }

  private afterBeat(had: boolean, sentAt: number): void {
    this.lastBeat = sentAt
    if (!had && this.beaten && !this.stopped) {
      this.o.log.warn('nodes: own heartbeat had lapsed; registering again')
      try {
        this.o.onRevived?.()
      } catch (err) {
        this.o.log.error({ err }, 'nodes: revival handler failed')
      }
    }
    this.beaten = true
  }

  /** Reports every node seen live before whose heartbeat is gone (the script removed it from the set). */
  private afterPoll(ids: string[], sentAt: number): void {
    this.lastPoll = sentAt
    if (this.stopped) return
    const live = new Set(ids)
    const before = this.liveSet
    this.liveSet = live
    this.o.metrics?.nodesLive.set(live.size)
    for (const id of before) {
      if (live.has(id) || id === this.o.nodeId) continue
      this.o.log.warn({ node: id }, 'nodes: heartbeat lapsed')
      try {
        this.o.onLapse?.(id)
      } catch (err) {
        this.o.log.error({ node: id, err }, 'nodes: lapse handler failed')
      }
    }
  }

  /** Stops the timers; by default deletes the heartbeat so the others notice at their next poll. */
  async stop(opts: { deregister?: boolean } = {}): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    clearInterval(this.timer)
    if (opts.deregister === false) return
    // Best effort: if Redis is gone, the heartbeat expires by itself.
    await atMost(
      this.redis.multi().del(keys.node(this.o.nodeId)).sRem(keys.nodes, this.o.nodeId).execAsPipeline(),
      1_000,
    )
  }
}
