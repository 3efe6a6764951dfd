// The document bus: moves committed updates and awareness between the nodes of a cluster over
// Redis pub/sub, one channel per document. PostgreSQL holds the truth; the bus only carries what
// is already committed, so anything it drops is read back from storage: a hole in a followed
// document's seqs (after a grace period) or a reconnect to Redis makes the bus ask the room to
// resync. A node follows only the documents it has loaded. See docs/cluster.md. One followed
// document's seqs, gaps and resyncs: followed-doc.ts; cycles held while Redis is away: bus-outbox.ts.
import type { Logger } from '../infra/log.js'
import { BusOutbox, type Frame } from './bus-outbox.js'
import { type BusMessage, encodeBusMessage } from './codec.js'
import { type FollowContext, FollowedDoc, type FollowHandlers, type ResyncReason } from './followed-doc.js'
import { keys } from './keys.js'
import type { ClusterMetrics } from './metrics.js'
import { connectRedis, describeRedisError, type RedisClient } from './redis.js'

export type { FollowHandlers, ResyncReason } from './followed-doc.js'

/** One document's share of a committed write cycle. */
export interface CycleUpdate {
  docId: string
  fromSeq: number
  toSeq: number
  /** the cycle's updates of the document, merged */
  update: Uint8Array
}

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
  private readonly outbox: BusOutbox
  private readonly context: FollowContext
  private closed = false

  /** Opens the two connections (commands, subscriptions); throws a clear error if Redis is unreachable. */
  static async connect(url: string, o: BusOptions & { connectTimeoutMs?: number }): Promise<DocBus> {
    const pub = await connectRedis({ url, name: `tandem-bus-pub-${o.nodeId}`, connectTimeoutMs: o.connectTimeoutMs, disableOfflineQueue: true })
    try {
      const sub = await connectRedis({ url, name: `tandem-bus-sub-${o.nodeId}`, connectTimeoutMs: o.connectTimeoutMs })
      return new DocBus(pub, sub, o)
    } catch (err) {
      pub.destroy()
      throw err
    }
  }

  /**
   * A bus over connections the caller opened (a cluster node shares `pub` with leases and
   * heartbeats). `pub` must fail commands while disconnected (disableOfflineQueue); the bus owns
   * both from now on and closes them.
   */
  static attach(pub: RedisClient, sub: RedisClient, o: BusOptions): DocBus {
    return new DocBus(pub, sub, o)
  }

  private constructor(
    private readonly pub: RedisClient,
    private readonly sub: RedisClient,
    private readonly o: BusOptions,
  ) {
    this.context = { nodeId: o.nodeId, log: o.log, metrics: o.metrics, gapGraceMs: o.gapGraceMs ?? 250, resyncRetryMs: o.resyncRetryMs ?? 1_000 }
    this.outbox = new BusOutbox(pub, o.log, o.metrics)
    // Both clients are connected: every later 'ready' is a reconnect. node-redis resubscribes every
    // channel before it reports 'ready', so a resync started here cannot miss a message.
    sub.on('ready', () => {
      this.updateGauge()
      if (this.closed) return
      this.o.log.warn({ docs: this.followed.size }, 'bus: reconnected to Redis; resyncing followed documents')
      for (const f of this.followed.values()) {
        f.requestResync('reconnect')
        // Others may have dropped our clients' awareness (our heartbeat lapsed) and we theirs:
        // announce ours and ask for theirs.
        this.queryAwareness(f.docId)
        try {
          f.handlers.onAwarenessQuery?.(this.o.nodeId)
        } catch (err) {
          this.o.log.error({ docId: f.docId, err }, 'bus: re-announcing awareness failed')
        }
      }
    })
    pub.on('ready', () => {
      this.updateGauge()
      this.outbox.pump()
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
    return this.outbox.pending
  }

  isFollowing(docId: string): boolean {
    return this.followed.has(docId)
  }

  /** The watermark of a followed document: every seq up to it is applied here. */
  watermark(docId: string): number | undefined {
    return this.followed.get(docId)?.tracker.watermark
  }

  private updateGauge(): void {
    this.o.metrics?.busConnected.set(this.ready ? 1 : 0)
  }

  // ---- following -----------------------------------------------------------------------------

  /**
   * Follows a document loaded up to lastSeq. Resolves once Redis confirmed the subscription and
   * the room resynced from lastSeq + 1, which closes the window between loading and subscribing.
   * While Redis is down it resolves at once: the room serves what it loaded from storage, and the
   * subscription and its catch-up follow when Redis is back (a load never waits for the bus; a
   * write cycle still does, see publish).
   */
  async follow(docId: string, lastSeq: number, handlers: FollowHandlers): Promise<void> {
    if (this.closed) throw new Error('bus is closed')
    if (this.followed.has(docId)) throw new Error(`bus: ${docId} is already followed`)
    const f = new FollowedDoc(docId, lastSeq, handlers, this.context)
    this.followed.set(docId, f)
    if (!this.sub.isReady) {
      this.subscribeLater(f)
      return
    }
    try {
      await this.sub.subscribe(keys.docChannel(docId), f.listener, true)
    } catch (err) {
      // The room's load fails with it; a later load must be able to follow again.
      if (this.followed.get(docId) === f) this.forget(f)
      throw err
    }
    if (f.gone) return
    this.subscribed(f)
    await f.resyncing
  }

  private subscribed(f: FollowedDoc): void {
    this.queryAwareness(f.docId)
    f.requestResync('follow')
  }

  /**
   * Redis is down: subscribe in the background (node-redis sends it on reconnect), then catch up
   * from storage. A refused subscription is tried again: a loaded room must not stay unfollowed.
   */
  private subscribeLater(f: FollowedDoc): void {
    this.sub.subscribe(keys.docChannel(f.docId), f.listener, true).then(
      () => {
        if (!f.gone) this.subscribed(f)
      },
      (err: unknown) => {
        if (f.gone || this.closed) return
        this.o.log.warn({ docId: f.docId, err: describeRedisError(err) }, 'bus: subscribing failed; retrying')
        f.retryLater(() => {
          if (!f.gone && !this.closed) this.subscribeLater(f)
        })
      },
    )
  }

  async unfollow(docId: string): Promise<void> {
    const f = this.followed.get(docId)
    if (!f) return
    this.forget(f)
    // node-redis drops the listener from its state at once, so a reconnect does not resubscribe
    // it; while disconnected the UNSUBSCRIBE itself waits for the connection, so wait only if up.
    const done = this.sub.unsubscribe(keys.docChannel(docId), f.listener, true).catch(() => undefined)
    if (this.sub.isReady) await done
  }

  private forget(f: FollowedDoc): void {
    f.forget()
    this.followed.delete(f.docId)
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

  // ---- publishing ----------------------------------------------------------------------------

  /**
   * Publishes a committed write cycle: one message per document, all in one pipeline. Resolves
   * when Redis accepted every message; while Redis is unreachable the cycle waits in the outbox
   * and goes out after the reconnect. The caller acknowledges the cycle only then.
   */
  publish(cycle: CycleUpdate[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('bus is closed'))
    for (const u of cycle) this.followed.get(u.docId)?.committed(u.fromSeq, u.toSeq)
    if (cycle.length === 0) return Promise.resolve()
    const frames = cycle.map((u): Frame => [
      keys.docChannel(u.docId),
      Buffer.from(encodeBusMessage({ type: 'update', node: this.o.nodeId, fromSeq: u.fromSeq, toSeq: u.toSeq, update: u.update })),
    ])
    return this.outbox.send(frames)
  }

  /** Awareness is not durable: published when connected, dropped otherwise (clients renew it). */
  publishAwareness(docId: string, update: Uint8Array): void {
    this.fireAndForget(docId, encodeBusMessage({ type: 'awareness', node: this.o.nodeId, update }), 'awareness')
  }

  private queryAwareness(docId: string): void {
    this.fireAndForget(docId, encodeBusMessage({ type: 'awareness-query', node: this.o.nodeId }), 'awareness-query')
  }

  private fireAndForget(docId: string, payload: Uint8Array, type: BusMessage['type']): void {
    if (this.closed || !this.pub.isReady) return
    this.o.metrics?.busMessages.inc({ direction: 'out', type })
    this.pub.publish(keys.docChannel(docId), Buffer.from(payload)).catch(() => undefined)
  }

  /** Stops following everything and closes both connections; held cycles are rejected. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.outbox.close()
    for (const f of [...this.followed.values()]) this.forget(f)
    this.updateGauge()
    await Promise.all(
      [this.sub, this.pub].map(async (c) => {
        if (c.isReady) await c.close().catch(() => c.destroy())
        else c.destroy()
      }),
    )
  }
}
