// One document a node follows on the bus: which of its seqs are applied here, a hole that outlives
// its grace period (a gap), and the resync from storage that closes it. Resync requests coalesce:
// while one runs, at most one more is queued; a failed one is retried after a delay.
import type { Logger } from '../infra/log.js'
import type { AwarenessMessage, BusMessage, UpdateMessage } from './codec.js'
import type { ClusterMetrics } from './metrics.js'
import { SeqTracker } from './seq-tracker.js'

export type ResyncReason = 'follow' | 'gap' | 'reconnect' | 'node_lapse' | 'retry' | 'join'

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

export interface FollowContext {
  nodeId: string
  log: Logger
  metrics?: ClusterMetrics
  /** ms a hole in a document's seqs may stay open (reordered publishers) before it is a gap */
  gapGraceMs: number
  /** ms between retries of a failed resync or subscription */
  resyncRetryMs: number
}

export class FollowedDoc {
  readonly tracker: SeqTracker
  /** set once the bus stops following it: every timer and late answer is ignored */
  gone = false
  resyncing: Promise<void> | null = null
  /**
   * Whether another node follows the document, as this node's last publish of it found: 'none'
   * lets a cycle skip Redis altogether. Only a publish's answer sets it, and only if `othersGen`
   * did not move meanwhile (a join or a reconnect makes it 'unknown' again).
   */
  others: 'unknown' | 'none' | 'some' = 'unknown'
  othersGen = 0
  /** some committed cycle of this node was never sent: a node that joins is told the head */
  unsent = false
  /** watermark when the current gap timer started */
  private gapFrom = 0
  private gapTimer: NodeJS.Timeout | null = null
  private retryTimer: NodeJS.Timeout | null = null
  private again: ResyncReason | null = null

  constructor(
    readonly docId: string,
    lastSeq: number,
    readonly handlers: FollowHandlers,
    private readonly c: FollowContext,
  ) {
    this.tracker = new SeqTracker(lastSeq)
  }

  forget(): void {
    this.gone = true
    if (this.gapTimer) clearTimeout(this.gapTimer)
    if (this.retryTimer) clearTimeout(this.retryTimer)
  }

  /** Runs `fn` after the retry delay; a resync starting meanwhile cancels it. */
  retryLater(fn: () => void): void {
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null
      fn()
    }, this.c.resyncRetryMs)
    this.retryTimer.unref()
  }

  /**
   * This node committed seqs of the document: tracked, and they can reveal a hole too (another node's cycle not
   * received yet).
   */
  committed(fromSeq: number, toSeq: number): void {
    this.tracker.add(fromSeq, toSeq)
    this.checkGap()
  }

  /** Another node may follow now (it joined, or we were cut off): the next cycle asks Redis again. */
  othersMayHaveChanged(): void {
    this.others = 'unknown'
    this.othersGen++
  }

  /** A message another node sent to this node's inbox about this document. */
  receive(m: BusMessage): void {
    if (this.gone) return
    if (m.node === this.c.nodeId) return // never sent (followers.ts skips the publisher); kept as a guard
    this.c.metrics?.busMessages.inc({ direction: 'in', type: m.type })
    try {
      if (m.type === 'awareness') this.handlers.onAwareness(m)
      else if (m.type === 'awareness-query') this.handlers.onAwarenessQuery?.(m.node)
      else if (m.type === 'head') {
        // The sender committed up to m.seq and did not send all of it (it was alone): read it.
        if (m.seq > this.tracker.watermark) this.requestResync('join')
      } else if (m.toSeq <= this.tracker.watermark) {
        // Already applied (a resync read it first, or a publisher's retry): nothing to broadcast.
      } else {
        this.handlers.onUpdate(m)
        // Tracked only once applied: an update the room refused stays a hole and is resynced.
        this.tracker.add(m.fromSeq, m.toSeq)
        this.checkGap()
      }
    } catch (err) {
      this.c.log.error({ docId: this.docId, err, type: m.type }, 'bus: applying a message failed')
      if (m.type === 'update') this.checkGap()
    }
  }

  /** A hole that outlives the grace period (same watermark as when it was seen) is a gap. */
  private checkGap(): void {
    if (this.gapTimer || this.gone || !this.tracker.hasHole) return
    this.gapFrom = this.tracker.watermark
    this.gapTimer = setTimeout(() => {
      this.gapTimer = null
      if (this.gone || !this.tracker.hasHole) return
      if (this.tracker.watermark !== this.gapFrom) return this.checkGap() // it moved: a new hole, a new grace period
      this.c.metrics?.busGaps.inc()
      this.c.log.info(
        { docId: this.docId, from: this.tracker.watermark + 1, highest: this.tracker.highest },
        'bus: gap in seqs; resyncing',
      )
      this.requestResync('gap')
    }, this.c.gapGraceMs)
    this.gapTimer.unref()
  }

  /** Resyncs the document; concurrent requests coalesce into one more run after the current. */
  requestResync(reason: ResyncReason): void {
    if (this.gone) return
    if (this.resyncing) {
      this.again ??= reason
      return
    }
    if (this.retryTimer) {
      clearTimeout(this.retryTimer)
      this.retryTimer = null
    }
    this.resyncing = (async () => {
      let next: ResyncReason | null = reason
      while (next && !this.gone) {
        this.again = null
        this.c.metrics?.busResyncs.inc({ reason: next })
        try {
          const head = await this.handlers.resync(this.tracker.watermark + 1, next)
          if (this.gone) break
          this.tracker.advanceTo(head)
        } catch (err) {
          // Storage unreachable: try again later; the room keeps serving what it has.
          this.c.metrics?.busResyncFailures.inc()
          this.c.log.warn({ docId: this.docId, err: String(err) }, 'bus: resync failed; retrying')
          this.retryLater(() => this.requestResync('retry'))
          break
        }
        next = this.again
      }
      this.resyncing = null
      this.checkGap()
    })()
  }
}
