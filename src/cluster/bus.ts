// The document bus: moves committed updates and awareness between the nodes of a cluster over
// Redis pub/sub, one channel per document. PostgreSQL holds the truth; the bus only carries what
// is already committed, so anything it drops is read back from storage: a hole in a followed
// document's seqs (after a grace period) or a reconnect to Redis makes the bus ask the room to
// resync. A node follows only the documents it has loaded. See docs/cluster.md.
import type { Logger } from '../infra/log.js'
import { type AwarenessMessage, type BusMessage, decodeBusMessage, encodeBusMessage, type UpdateMessage } from './codec.js'
import { keys } from './keys.js'
import type { ClusterMetrics } from './metrics.js'
import { connectRedis, describeRedisError, type RedisClient } from './redis.js'
import { SeqTracker } from './seq-tracker.js'

export type ResyncReason = 'follow' | 'gap' | 'reconnect' | 'node_lapse' | 'retry'

export interface FollowHandlers {
  /** An update another node committed: apply it to the room and broadcast it to local sockets. */
  onUpdate(m: UpdateMessage): void
  /** Awareness of another node's clients: apply it with that node as origin, never relay it. */
  onAwareness(m: AwarenessMessage): void
  /** Another node just followed the document: publish the awareness of this node's clients. */
  onAwarenessQuery?(node: string): void
  /**
   * Reads every committed update with seq >= fromSeq from storage, applies and broadcasts it;
   * resolves with the seq everything is now applied up to (the document's head).
   */
  resync(fromSeq: number, reason: ResyncReason): Promise<number>
}

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

interface Followed {
  docId: string
  tracker: SeqTracker
  handlers: FollowHandlers
  listener: (message: Buffer) => void
  /** watermark when the current gap timer started */
  gapFrom: number
  gapTimer: NodeJS.Timeout | null
  retryTimer: NodeJS.Timeout | null
  resyncing: Promise<void> | null
  again: ResyncReason | null
  gone: boolean
}

interface Outgoing {
  frames: [channel: string, payload: Buffer][]
  startedAt: number
  resolve: () => void
  reject: (err: Error) => void
}

export class DocBus {
  private readonly followed = new Map<string, Followed>()
  private outbox: Outgoing[] = []
  private pumpTimer: NodeJS.Timeout | null = null
  private closed = false
  private readonly gapGraceMs: number
  private readonly resyncRetryMs: number

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
    this.gapGraceMs = o.gapGraceMs ?? 250
    this.resyncRetryMs = o.resyncRetryMs ?? 1_000
    // Both clients are connected: every later 'ready' is a reconnect. node-redis resubscribes every
    // channel before it reports 'ready', so a resync started here cannot miss a message.
    sub.on('ready', () => {
      this.updateGauge()
      if (this.closed) return
      this.o.log.warn({ docs: this.followed.size }, 'bus: reconnected to Redis; resyncing followed documents')
      for (const f of this.followed.values()) {
        this.requestResync(f, 'reconnect')
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
      this.pump()
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
    return this.outbox.length
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
    const f: Followed = {
      docId,
      tracker: new SeqTracker(lastSeq),
      handlers,
      listener: (message: Buffer) => this.dispatch(f, message),
      gapFrom: 0,
      gapTimer: null,
      retryTimer: null,
      resyncing: null,
      again: null,
      gone: false,
    }
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

  private subscribed(f: Followed): void {
    this.queryAwareness(f.docId)
    this.requestResync(f, 'follow')
  }

  /**
   * Redis is down: subscribe in the background (node-redis sends it on reconnect), then catch up
   * from storage. A refused subscription is tried again: a loaded room must not stay unfollowed.
   */
  private subscribeLater(f: Followed): void {
    this.sub.subscribe(keys.docChannel(f.docId), f.listener, true).then(
      () => {
        if (!f.gone) this.subscribed(f)
      },
      (err: unknown) => {
        if (f.gone || this.closed) return
        this.o.log.warn({ docId: f.docId, err: describeRedisError(err) }, 'bus: subscribing failed; retrying')
        f.retryTimer = setTimeout(() => {
          f.retryTimer = null
          if (!f.gone && !this.closed) this.subscribeLater(f)
        }, this.resyncRetryMs)
        f.retryTimer.unref()
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

  private forget(f: Followed): void {
    f.gone = true
    if (f.gapTimer) clearTimeout(f.gapTimer)
    if (f.retryTimer) clearTimeout(f.retryTimer)
    this.followed.delete(f.docId)
  }

  private dispatch(f: Followed, raw: Buffer): void {
    if (f.gone) return
    let m: BusMessage
    try {
      m = decodeBusMessage(raw)
    } catch (err) {
      this.o.log.warn({ docId: f.docId, err: String(err) }, 'bus: undecodable message ignored')
      return
    }
    if (m.node === this.o.nodeId) return // our own publish, already applied and tracked
    this.o.metrics?.busMessages.inc({ direction: 'in', type: m.type })
    try {
      if (m.type === 'awareness') f.handlers.onAwareness(m)
      else if (m.type === 'awareness-query') f.handlers.onAwarenessQuery?.(m.node)
      else if (m.toSeq <= f.tracker.watermark) {
        // Already applied (a resync read it first, or a publisher's retry): nothing to broadcast.
      } else {
        f.handlers.onUpdate(m)
        // Tracked only once applied: an update the room refused stays a hole and is resynced.
        f.tracker.add(m.fromSeq, m.toSeq)
        this.checkGap(f)
      }
    } catch (err) {
      this.o.log.error({ docId: f.docId, err, type: m.type }, 'bus: applying a message failed')
      if (m.type === 'update') this.checkGap(f)
    }
  }

  /** A hole that outlives the grace period (same watermark as when it was seen) is a gap. */
  private checkGap(f: Followed): void {
    if (f.gapTimer || f.gone || !f.tracker.hasHole) return
    f.gapFrom = f.tracker.watermark
    f.gapTimer = setTimeout(() => {
      f.gapTimer = null
      if (f.gone || !f.tracker.hasHole) return
      if (f.tracker.watermark !== f.gapFrom) return this.checkGap(f) // it moved: a new hole, a new grace period
      this.o.metrics?.busGaps.inc()
      this.o.log.info({ docId: f.docId, from: f.tracker.watermark + 1, highest: f.tracker.highest }, 'bus: gap in seqs; resyncing')
      this.requestResync(f, 'gap')
    }, this.gapGraceMs)
    f.gapTimer.unref()
  }

  /** Resyncs one document; concurrent requests coalesce into one more run after the current. */
  private requestResync(f: Followed, reason: ResyncReason): void {
    if (f.gone) return
    if (f.resyncing) {
      f.again ??= reason
      return
    }
    if (f.retryTimer) {
      clearTimeout(f.retryTimer)
      f.retryTimer = null
    }
    f.resyncing = (async () => {
      let next: ResyncReason | null = reason
      while (next && !f.gone) {
        f.again = null
        this.o.metrics?.busResyncs.inc({ reason: next })
        try {
          const head = await f.handlers.resync(f.tracker.watermark + 1, next)
          if (f.gone) break
          f.tracker.advanceTo(head)
        } catch (err) {
          // Storage unreachable: try again later; the room keeps serving what it has.
          this.o.metrics?.busResyncFailures.inc()
          this.o.log.warn({ docId: f.docId, err: String(err) }, 'bus: resync failed; retrying')
          f.retryTimer = setTimeout(() => {
            f.retryTimer = null
            this.requestResync(f, 'retry')
          }, this.resyncRetryMs)
          f.retryTimer.unref()
          break
        }
        next = f.again
      }
      f.resyncing = null
      this.checkGap(f)
    })()
  }

  /** Resyncs every followed document (a node's heartbeat lapsed: its last cycle may be unannounced). */
  resyncAll(reason: ResyncReason): void {
    for (const f of this.followed.values()) this.requestResync(f, reason)
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
    for (const u of cycle) {
      const f = this.followed.get(u.docId)
      if (!f) continue
      f.tracker.add(u.fromSeq, u.toSeq)
      // Our own commit can reveal a hole too (another node's cycle not received yet).
      this.checkGap(f)
    }
    if (cycle.length === 0) return Promise.resolve()
    const frames = cycle.map((u): [string, Buffer] => [
      keys.docChannel(u.docId),
      Buffer.from(encodeBusMessage({ type: 'update', node: this.o.nodeId, fromSeq: u.fromSeq, toSeq: u.toSeq, update: u.update })),
    ])
    return new Promise<void>((resolve, reject) => {
      this.outbox.push({ frames, startedAt: performance.now(), resolve, reject })
      this.pump()
    })
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

  private pump(): void {
    if (this.closed || this.outbox.length === 0 || !this.pub.isReady) return
    const batch = this.outbox
    this.outbox = []
    const multi = this.pub.multi()
    for (const o of batch) for (const [channel, payload] of o.frames) multi.publish(channel, payload)
    multi.execAsPipeline().then(
      () => {
        const now = performance.now()
        for (const o of batch) {
          this.o.metrics?.busMessages.inc({ direction: 'out', type: 'update' }, o.frames.length)
          this.o.metrics?.busPublishSeconds.observe((now - o.startedAt) / 1000)
          o.resolve()
        }
      },
      (err: unknown) => {
        // Some messages may have gone out: sending them again is harmless (receivers track seqs,
        // Yjs updates are idempotent); losing them is not.
        if (this.closed) {
          for (const o of batch) o.reject(new Error('bus is closed'))
          return
        }
        this.outbox = batch.concat(this.outbox)
        this.o.log.warn({ err: describeRedisError(err), held: this.outbox.length }, 'bus: publish failed; held until Redis is back')
        this.schedulePump()
      },
    )
  }

  private schedulePump(): void {
    if (this.pumpTimer) return
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null
      this.pump()
    }, 200)
    this.pumpTimer.unref()
  }

  /** Stops following everything and closes both connections; held cycles are rejected. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.pumpTimer) clearTimeout(this.pumpTimer)
    for (const f of [...this.followed.values()]) this.forget(f)
    for (const o of this.outbox.splice(0)) o.reject(new Error('bus is closed'))
    this.updateGauge()
    await Promise.all(
      [this.sub, this.pub].map(async (c) => {
        if (c.isReady) await c.close().catch(() => c.destroy())
        else c.destroy()
      }),
    )
  }
}
