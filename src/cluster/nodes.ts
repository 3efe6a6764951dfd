// Node membership: every node writes a heartbeat key with a TTL and lists itself in a set; every
// node polls the set and reports a node it has seen live whose heartbeat has lapsed (dead, or cut
// off from Redis), so its clients' awareness can be removed and followed documents resynced.
// Expiry is Redis' clock, so node clocks need not agree.
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { Logger } from '../infra/log.js'
import { keys } from './keys.js'
import type { ClusterMetrics } from './metrics.js'
import { atMost, describeRedisError, type RedisClient } from './redis.js'

/** A node id: random per process start (nothing to configure per node), readable in logs. */
export function newNodeId(): string {
  return `${hostname().replace(/[^A-Za-z0-9.-]/g, '').slice(0, 32) || 'node'}-${process.pid}-${randomBytes(4).toString('hex')}`
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
  private readonly heartbeatTimer: NodeJS.Timeout
  private readonly pollTimer: NodeJS.Timeout
  private stopped = false
  private polling = false
  /** a heartbeat was written before: a missing key at the next one means it lapsed */
  private beaten = false
  private readonly ttlMs: number
  private readonly payload: string

  /** Writes the first heartbeat (so a start against an unreachable Redis fails) and starts the timers. */
  static async start(redis: RedisClient, o: NodesOptions): Promise<NodeMembership> {
    const m = new NodeMembership(redis, o)
    try {
      await m.beat()
      await m.poll()
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
    this.payload = JSON.stringify({ id: o.nodeId, pid: process.pid, startedAt: Date.now(), ...o.info })
    this.heartbeatTimer = setInterval(() => {
      this.beat().catch((err) => this.o.log.debug({ err: describeRedisError(err) }, 'nodes: heartbeat failed'))
    }, o.everyMs ?? 2_000)
    this.pollTimer = setInterval(() => {
      this.poll().catch((err) => this.o.log.debug({ err: describeRedisError(err) }, 'nodes: poll failed'))
    }, o.pollMs ?? 2_000)
    this.heartbeatTimer.unref()
    this.pollTimer.unref()
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

  private async beat(): Promise<void> {
    if (this.stopped) return
    const [previous] = await this.redis
      .multi()
      .set(keys.node(this.o.nodeId), this.payload, { expiration: { type: 'PX', value: this.ttlMs }, GET: true })
      .sAdd(keys.nodes, this.o.nodeId)
      .execAsPipeline()
    if (previous === null && this.beaten && !this.stopped) {
      this.o.log.warn('nodes: own heartbeat had lapsed; registering again')
      try {
        this.o.onRevived?.()
      } catch (err) {
        this.o.log.error({ err }, 'nodes: revival handler failed')
      }
    }
    this.beaten = true
  }

  /** Reads who is live; reports lapses; removes lapsed ids from the set (any node may, idempotent). */
  async poll(): Promise<void> {
    if (this.stopped || this.polling) return
    this.polling = true
    try {
      await this.pollOnce()
    } finally {
      this.polling = false
    }
  }

  private async pollOnce(): Promise<void> {
    const members = (await this.redis.sMembers(keys.nodes)).map(String)
    const values = members.length ? await this.redis.mGet(members.map((id) => keys.node(id))) : []
    const live = new Set<string>()
    const dead: string[] = []
    members.forEach((id, i) => (values[i] === null ? dead.push(id) : live.add(id)))
    if (dead.length) await this.redis.sRem(keys.nodes, dead)
    if (this.stopped) return
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
    clearInterval(this.heartbeatTimer)
    clearInterval(this.pollTimer)
    if (opts.deregister === false) return
    // Best effort: if Redis is gone, the heartbeat expires by itself.
    await atMost(this.redis.multi().del(keys.node(this.o.nodeId)).sRem(keys.nodes, this.o.nodeId).execAsPipeline(), 1_000)
  }
}
