// The document bus: moves committed updates and awareness between the nodes of a cluster over
// Redis pub/sub. PostgreSQL holds the truth; the bus only carries what is already committed, so
// anything it drops is read back from storage: a hole in a followed document's seqs (after a grace
// period) or a reconnect to Redis makes the bus ask the room to resync. A node follows only the
// documents it has loaded, registers itself as their follower and reads one inbox channel of its
// own; a cycle goes only to the other followers of each document (followers.ts), so a node never
// reads back its own publishes and publishes nothing while no other node follows. See
// docs/cluster.md. One followed document's seqs, gaps and resyncs: followed-doc.ts; cycles held
// while Redis is away: bus-outbox.ts; what this node sends: bus-publish.ts; its registrations made
// again: bus-rejoin.ts.
import type { Logger } from '../infra/log.js'
import { BusPublisher, type CycleUpdate } from './bus-publish.js'
import { Rejoiner } from './bus-rejoin.js'
import { type BusMessage, decodeBusMessage } from './codec.js'
import { type FollowContext, FollowedDoc, type FollowHandlers, type ResyncReason } from './followed-doc.js'
import { reap, register, rejoin, unregister } from './followers.js'
import { keys } from './keys.js'
import type { ClusterMetrics } from './metrics.js'
import { atMost, connectRedis, describeRedisError, type RedisClient } from './redis.js'

export type { FollowHandlers, ResyncReason } from './followed-doc.js'

export interface BusOptions {
  nodeId: string
  log: Logger
  metrics?: ClusterMetrics
  /** ms a hole in a document's seqs may stay open (reordered publishers) before it is a gap */
  gapGraceMs?: number
  /** ms between retries of a failed resync */
  resyncRetryMs?: number
}

export class DocBus {
  private readonly followed = new Map<string, FollowedDoc>()
  private readonly send: BusPublisher
  private readonly context: FollowContext
  private closed = false
  /** makes this node's registrations again (a reconnect, our heartbeat lapsed, a follow while Redis was away) */
  private readonly rejoiner: Rejoiner
  /** the inbox subscription's listener: every message another node sent this one */
  private readonly onInbox = (raw: Buffer): void => this.receive(raw)

  /** Opens the two connections (commands, subscriptions); throws a clear error if Redis is unreachable. */
  static async connect(url: string, o: BusOptions & { connectTimeoutMs?: number }): Promise<DocBus> {
    const pub = await connectRedis({
      url,
      name: `tandem-bus-pub-${o.nodeId}`,
      connectTimeoutMs: o.connectTimeoutMs,
      disableOfflineQueue: true,
    })
    let sub: RedisClient
    try {
      sub = await connectRedis({ url, name: `tandem-bus-sub-${o.nodeId}`, connectTimeoutMs: o.connectTimeoutMs })
    } catch (err) {
      pub.destroy()
      throw err
    }
    return DocBus.attach(pub, sub, o)
  }

  /**
   * A bus over connections the caller opened (a cluster node shares `pub` with leases and
   * heartbeats). `pub` must fail commands while disconnected (disableOfflineQueue); the bus owns
   * both from now on and closes them. Resolves once the inbox is subscribed.
   */
  static async attach(pub: RedisClient, sub: RedisClient, o: BusOptions): Promise<DocBus> {
    const bus = new DocBus(pub, sub, o)
    try {
      // Before any follow: a registration must never point at an inbox nobody reads.
      await sub.subscribe(keys.inbox(o.nodeId), bus.onInbox, true)
    } catch (err) {
      await bus.close()
      throw new Error(`redis-url: cannot subscribe: ${describeRedisError(err)}`)
    }
    return bus
  }

  private constructor(
    private readonly pub: RedisClient,
    private readonly sub: RedisClient,
    private readonly o: BusOptions,
  ) {
    this.context = {
      nodeId: o.nodeId,
      log: o.log,
      metrics: o.metrics,
      gapGraceMs: o.gapGraceMs ?? 250,
      resyncRetryMs: o.resyncRetryMs ?? 1_000,
    }
    this.send = new BusPublisher(pub, o.nodeId, o.log, o.metrics, (docId) => this.followed.get(docId))
    const { followed, send } = this
    this.rejoiner = new Rejoiner({
      pub,
      nodeId: o.nodeId,
      log: o.log,
      followed,
      send,
      retryMs: this.context.resyncRetryMs,
      closed: () => this.closed,
      ready: () => this.ready,
    })
    // Both clients are connected: every later 'ready' is a reconnect. node-redis resubscribes the
    // inbox before it reports 'ready'; what was sent to it meanwhile is lost, and Redis may have
    // restarted without our registrations: register again, then resync every followed document.
    sub.on('ready', () => {
      this.updateGauge()
      this.rejoinAll()
    })
    pub.on('ready', () => {
      this.updateGauge()
      this.send.outbox.pump()
      this.rejoiner.try()
    })
    for (const c of [pub, sub]) {
      c.on('error', (err: unknown) => {
        this.updateGauge()
        if (!this.closed) this.o.log.debug({ err: describeRedisError(err) }, 'bus: Redis connection error')
      })
      c.on('end', () => this.updateGauge())
    }
    this.updateGauge()
  }

  get nodeId(): string {
    return this.o.nodeId
  }

  /** Both connections are up: /readyz answers 503 otherwise. */
  get ready(): boolean {
    return !this.closed && this.pub.isReady && this.sub.isReady
  }

  /** Messages waiting for Redis (held while it is unreachable). */
  get pending(): number {
    return this.send.outbox.pending
  }

  isFollowing(docId: string): boolean {
    return this.followed.has(docId)
  }

  /**
   * No other node followed the document at its last publish, and none joined since. A hint for
   * work that is only saved, never made correct, by knowing it (a join may be on its way).
   */
  isAlone(docId: string): boolean {
    return this.followed.get(docId)?.others === 'none'
  }

  /** The watermark of a followed document: every seq up to it is applied here. */
  watermark(docId: string): number | undefined {
    return this.followed.get(docId)?.tracker.watermark
  }

  private updateGauge(): void {
    this.o.metrics?.busConnected.set(this.ready ? 1 : 0)
  }

  private receive(raw: Buffer): void {
    this.o.metrics?.busReceived.inc()
    let m: BusMessage
    try {
      m = decodeBusMessage(raw)
    } catch (err) {
      this.o.log.warn({ err: String(err) }, 'bus: undecodable message ignored')
      return
    }
    // Not followed (any more): a registration being removed, or one left by a lost unregister.
    const f = this.followed.get(m.docId)
    if (!f) return
    // A node joined (it registered, then asked): publish to Redis again and tell it how far we
    // committed if some of it never went out. Any cycle skipped so far was decided before this
    // point and so committed before the head we announce.
    if (m.type === 'awareness-query' && m.node !== this.o.nodeId) {
      f.othersMayHaveChanged()
      if (f.unsent) this.send.heads([f])
    }
    f.receive(m)
  }

  // ---- following -----------------------------------------------------------------------------

  /**
   * Follows a document loaded up to lastSeq. Resolves once this node is registered as a follower
   * and the room resynced from lastSeq + 1: any cycle whose publish ran before the registration
   * committed before it, so the catch-up reads it (followers.ts). While Redis is down it resolves
   * at once: the room serves what it loaded from storage, and the registration and its catch-up
   * follow when Redis is back (a load never waits for the bus; a write cycle still does, see publish).
   */
  async follow(docId: string, lastSeq: number, handlers: FollowHandlers): Promise<void> {
    if (this.closed) throw new Error('bus is closed')
    if (this.followed.has(docId)) throw new Error(`bus: ${docId} is already followed`)
    const f = new FollowedDoc(docId, lastSeq, handlers, this.context)
    this.followed.set(docId, f)
    if (!this.ready) {
      this.rejoinAll()
      return
    }
    try {
      await register(this.pub, this.o.nodeId, docId)
      // The join announcement is load-bearing: a node that was alone with the document stops
      // skipping Redis only when it hears it (receive), so it is awaited, not fired and forgotten.
      await this.send.join([docId])
    } catch (err) {
      // The room's load fails with it; a later load must be able to follow again.
      if (this.followed.get(docId) === f) this.forget(f)
      throw err
    }
    if (f.gone) return
    f.requestResync('follow')
    await f.resyncing
  }

  async unfollow(docId: string): Promise<void> {
    const f = this.followed.get(docId)
    if (!f) return
    this.forget(f)
    if (!this.pub.isReady) return this.rejoinAll() // the rejoin drops it
    await unregister(this.pub, this.o.nodeId, docId).catch(() => this.rejoinAll())
  }

  private forget(f: FollowedDoc): void {
    f.forget()
    this.followed.delete(f.docId)
  }

  /**
   * Registers every followed document again (and only those), then resyncs each: after a
   * reconnect, or when this node's heartbeat had lapsed and others may have removed its
   * registrations. Waits for both connections; coalesces.
   */
  rejoinAll(): void {
    this.rejoiner.request()
  }

  /**
   * Another node's heartbeat lapsed: remove its registrations (unless it is back), so cycles stop
   * going to its inbox, and resync every followed document (its last cycle may be unannounced).
   */
  nodeLapsed(nodeId: string): void {
    if (this.closed) return
    reap(this.pub, nodeId).catch((err: unknown) =>
      this.o.log.debug({ err: describeRedisError(err) }, 'bus: removing a lapsed node failed'),
    )
    this.resyncAll('node_lapse')
  }

  /** Resyncs every followed document (a node's heartbeat lapsed: its last cycle may be unannounced). */
  resyncAll(reason: ResyncReason): void {
    for (const f of this.followed.values()) f.requestResync(reason)
  }

  /** Resolves when no resync is running (tests, drain). */
  async settled(): Promise<void> {
    for (;;) {
      const running = [...this.followed.values()].map((f) => f.resyncing).filter((p) => p !== null)
      if (running.length === 0) return
      await Promise.all(running)
    }
  }

  // ---- publishing (bus-publish.ts) --------------------------------------------------------------

  /**
   * Publishes a committed write cycle to the other nodes following its documents (none are sent
   * while no other node follows). Resolves when Redis ran it; while Redis is unreachable the cycle
   * waits and goes out after the reconnect. The caller acknowledges the cycle only then.
   */
  publish(cycle: CycleUpdate[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('bus is closed'))
    return this.send.cycle(cycle)
  }

  /**
   * Awareness is not durable: published when connected, dropped otherwise (clients renew it).
   * Not sent while no other node follows the document, as for a cycle: a node that joins asks
   * every follower for its clients' awareness (its join announcement), and hearing it makes this
   * node publish again.
   */
  publishAwareness(docId: string, update: Uint8Array): void {
    this.send.awareness(docId, update)
  }

  /** Stops following everything, drops this node's registrations, closes both connections; held cycles are rejected. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.send.close()
    for (const f of [...this.followed.values()]) this.forget(f)
    this.updateGauge()
    // Best effort: a registration left behind only costs publishes until our heartbeat lapses.
    if (this.pub.isReady) await atMost(rejoin(this.pub, this.o.nodeId, []), 1_000)
    await Promise.all(
      [this.sub, this.pub].map(async (c) => {
        if (c.isReady) await c.close().catch(() => c.destroy())
        else c.destroy()
      }),
    )
  }
}
