// What this node sends to the other followers of its documents (bus.ts decides when): committed
// cycles through the outbox, awareness, join announcements and heads. Each publish learns whether
// any other node follows the document (FollowedDoc.others), so a document no other node follows
// costs Redis nothing until a join is heard.
import type { Logger } from '../infra/log.js'
import { BusOutbox, type Frame } from './bus-outbox.js'
import { type BusMessage, encodeBusMessage } from './codec.js'
import type { FollowedDoc } from './followed-doc.js'
import { publishToFollowers } from './followers.js'
import type { ClusterMetrics } from './metrics.js'
import { describeRedisError, type RedisClient } from './redis.js'

/** One document's share of a committed write cycle. */
export interface CycleUpdate {
  docId: string
  fromSeq: number
  toSeq: number
  /** the cycle's updates of the document, merged */
  update: Uint8Array
}

export class BusPublisher {
  /** cycles held while Redis is unreachable */
  readonly outbox: BusOutbox
  private closed = false

  constructor(
    private readonly pub: RedisClient,
    private readonly nodeId: string,
    private readonly log: Logger,
    private readonly metrics: ClusterMetrics | undefined,
    /** the followed document of an id, if this node follows it */
    private readonly followed: (docId: string) => FollowedDoc | undefined,
  ) {
    this.outbox = new BusOutbox(pub, nodeId, log, metrics)
  }

  /**
   * A committed write cycle: one message per document to each other node following it, all in
   * one script call. A document whose last publish found no other follower, with no join seen
   * since, is not sent at all. Resolves when Redis ran it; while Redis is unreachable the cycle
   * waits in the outbox and goes out after the reconnect.
   */
  cycle(cycle: CycleUpdate[]): Promise<void> {
    const send: CycleUpdate[] = []
    const gens: (number | undefined)[] = []
    for (const u of cycle) {
      const f = this.followed(u.docId)
      f?.committed(u.fromSeq, u.toSeq)
      if (f?.others === 'none') {
        // Nobody else followed at the last publish and nobody joined since: nothing to send. A
        // node that joins later reads this cycle in its catch-up or is told the head (receive).
        f.unsent = true
        this.metrics?.busUnsent.inc()
        continue
      }
      send.push(u)
      gens.push(f?.othersGen)
    }
    if (send.length === 0) return Promise.resolve()
    const frames = send.map((u): Frame => [
      u.docId,
      Buffer.from(
        encodeBusMessage({
          type: 'update',
          node: this.nodeId,
          docId: u.docId,
          fromSeq: u.fromSeq,
          toSeq: u.toSeq,
          update: u.update,
        }),
      ),
    ])
    return this.outbox.send(frames).then((sent) => {
      send.forEach((u, i) => {
        const f = this.followed(u.docId)
        // Only if nothing happened since the script ran that could have made it stale.
        if (f && f.othersGen === gens[i]) f.others = sent[i]! > 0 ? 'some' : 'none'
      })
    })
  }

  /** Awareness, when connected and some other node follows the document (see DocBus.publishAwareness). */
  awareness(docId: string, update: Uint8Array): void {
    const f = this.followed(docId)
    if (f?.others === 'none') return
    this.fireAndForget(f, docId, encodeBusMessage({ type: 'awareness', node: this.nodeId, docId, update }), 'awareness')
  }

  /**
   * Tells the other followers of each document that this node follows it now (an awareness query:
   * they re-announce their clients' awareness, resume publishing to Redis, and send their head if
   * they skipped any cycle). Rejects if Redis did not run it.
   */
  async join(docIds: string[]): Promise<void> {
    const sent = await publishToFollowers(
      this.pub,
      this.nodeId,
      docIds.map(
        (docId) =>
          [docId, Buffer.from(encodeBusMessage({ type: 'awareness-query', node: this.nodeId, docId }))] as const,
      ),
    )
    this.metrics?.busMessages.inc(
      { direction: 'out', type: 'awareness-query' },
      sent.reduce((a, b) => a + b, 0),
    )
  }

  /** Sends each document's committed head to its other followers (a joiner learns what it was not sent). */
  heads(docs: FollowedDoc[]): void {
    if (this.closed || !this.pub.isReady || docs.length === 0) return
    const messages = docs.map(
      (f) =>
        [
          f.docId,
          Buffer.from(encodeBusMessage({ type: 'head', node: this.nodeId, docId: f.docId, seq: f.tracker.highest })),
        ] as const,
    )
    publishToFollowers(this.pub, this.nodeId, messages).then(
      (sent) =>
        this.metrics?.busMessages.inc(
          { direction: 'out', type: 'head' },
          sent.reduce((a, b) => a + b, 0),
        ),
      // Lost: the joiner still sees a hole at our next published cycle (gap resync).
      (err: unknown) => this.log.warn({ err: describeRedisError(err) }, 'bus: announcing heads failed'),
    )
  }

  private fireAndForget(
    f: FollowedDoc | undefined,
    docId: string,
    payload: Uint8Array,
    type: BusMessage['type'],
  ): void {
    if (this.closed || !this.pub.isReady) return
    const gen = f?.othersGen
    publishToFollowers(this.pub, this.nodeId, [[docId, Buffer.from(payload)]]).then(
      (sent) => {
        this.metrics?.busMessages.inc({ direction: 'out', type }, sent[0] ?? 0)
        // What a cycle's publish learns, learnt here too (same rule: only if nothing moved since).
        if (f && !f.gone && f.othersGen === gen) f.others = (sent[0] ?? 0) > 0 ? 'some' : 'none'
      },
      () => undefined,
    )
  }

  /** Nothing is sent any more; held cycles are rejected. */
  close(): void {
    this.closed = true
    this.outbox.close()
  }
}
