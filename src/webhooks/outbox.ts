// The durable outbox, in the control-plane store (LevelDB or PostgreSQL, whichever the server
// uses), so an event can be recorded in the same batch as a control-plane change. Records:
//   whd/{webhook}/{newest-first event}   one delivery: status, attempts, last status, next attempt
//   whf/{webhook}/{order key}/{event}    pending deliveries per webhook and asset, oldest first
//   whq/{next_at_ms:13}/{webhook}/{event} due queue, every pending delivery, by next attempt
// Claiming moves a due entry to a lease (now + lease ms) under one store-wide serial lock (a
// PostgreSQL advisory lock across nodes): one node delivers it; if that node dies, the lease
// comes due and another node takes it. Only the oldest pending delivery of a (webhook, asset)
// is sent, so one asset's events arrive in order.
import { key, type ControlStore, type Op } from '../control/store.js'
import type { EventType } from '@tandem/api/webhook-events'
import type { OutboxEvent } from './events.js'
import { eventBody } from './events.js'
import type { WebhookRecord } from './records.js'

type DeliveryStatus = 'pending' | 'delivered' | 'failed'

export interface Delivery {
  eventId: string
  webhookId: string
  workspaceId: string
  type: EventType
  orderKey: string
  body: string
  status: DeliveryStatus
  attempts: number
  lastStatusCode: number | null
  lastError: string | null
  /** ms of the next attempt while pending */
  nextAt: number | null
  createdAt: number
}

export interface Claimed {
  delivery: Delivery
  /** the due-queue key holding the lease; settle removes it */
  leaseKey: string
}

export interface ClaimResult {
  claimed: Claimed[]
  /** when the earliest entry left in the queue comes due, as far as the claim saw (null: none seen) */
  next: number | null
}

const CLAIM_LOCK = 'whq-claim'
const pad13 = (n: number) => String(Math.max(0, Math.floor(n))).padStart(13, '0')
/** Event ids sort by time; delivery keys invert that so a listing starts with the newest. */
const newestFirst = (eventId: string) => {
  const ms = Number(eventId.slice(4, 17))
  return `${pad13(9_999_999_999_999 - ms)}_${eventId}`
}
const deliveryKey = (wh: string, ev: string) => key('whd', wh, newestFirst(ev))
const fifoKey = (wh: string, orderKey: string, ev: string) => key('whf', wh, orderKey, ev)
const dueKey = (at: number, wh: string, ev: string) => key('whq', pad13(at), wh, ev)
const dueAt = (k: string) => Number(k.split('/')[1])

export class Outbox {
  constructor(private readonly store: ControlStore) {}

  /**
   * The records of a new event for each webhook subscribed to it: to go in one batch (with the change, where there is
   * one).
   */
  eventOps(event: OutboxEvent, webhooks: readonly WebhookRecord[]): Op[] {
    const body = eventBody(event)
    const ops: Op[] = []
    for (const w of webhooks) {
      if (w.workspaceId !== event.workspaceId || !w.events.includes(event.type)) continue
      const d: Delivery = {
        eventId: event.id,
        webhookId: w.id,
        workspaceId: w.workspaceId,
        type: event.type,
        orderKey: event.orderKey,
        body,
        status: 'pending',
        attempts: 0,
        lastStatusCode: null,
        lastError: null,
        nextAt: event.at,
        createdAt: event.at,
      }
      ops.push(
        { type: 'put', key: deliveryKey(w.id, event.id), value: d },
        { type: 'put', key: fifoKey(w.id, event.orderKey, event.id), value: 1 },
        { type: 'put', key: dueKey(event.at, w.id, event.id), value: 1 },
      )
    }
    return ops
  }

  /** Whether an event was already recorded for this webhook (a recovered window re-emitted). */
  async has(webhookId: string, eventId: string): Promise<boolean> {
    return (await this.store.get(deliveryKey(webhookId, eventId))) !== undefined
  }

  /**
   * Up to `max` due deliveries, each leased to the caller until now + leaseMs. A delivery whose
   * webhook is gone is dropped; one behind an older pending delivery of its asset waits.
   */
  claim(nowMs: number, max: number, leaseMs: number, isLive: (webhookId: string) => boolean): Promise<ClaimResult> {
    return this.store.serial(CLAIM_LOCK, async () => {
      const page = Math.max(64, max * 4)
      const due = await this.store.list<number>('whq', page)
      const claimed: Claimed[] = []
      const ops: Op[] = []
      // a full page may hide more due entries beyond it
      let next: number | null = due.length === page ? nowMs : null
      const later = (at: number) => (next = next === null ? at : Math.min(next, at))
      for (const { key: k } of due) {
        if (claimed.length >= max) {
          later(nowMs)
          break
        }
        if (dueAt(k) > nowMs) {
          later(dueAt(k))
          break
        }
        const [, , wh, ev] = k.split('/') as [string, string, string, string]
        const d = await this.store.get<Delivery>(deliveryKey(wh, ev))
        if (!d || d.status !== 'pending' || !isLive(wh)) {
          ops.push({ type: 'del', key: k })
          if (d)
            ops.push(
              { type: 'del', key: fifoKey(wh, d.orderKey, ev) },
              ...(isLive(wh) ? [] : [{ type: 'del' as const, key: deliveryKey(wh, ev) }]),
            )
          continue
        }
        const [head] = await this.store.list(key('whf', wh, d.orderKey), 1)
        if (head && head.key !== fifoKey(wh, d.orderKey, ev)) {
          // an older delivery of this asset is still pending: look again when it may have settled
          ops.push({ type: 'del', key: k }, { type: 'put', key: dueKey(nowMs + 1000, wh, ev), value: 1 })
          later(nowMs + 1000)
          continue
        }
        const leaseKey = dueKey(nowMs + leaseMs, wh, ev)
        ops.push({ type: 'del', key: k }, { type: 'put', key: leaseKey, value: 1 })
        later(nowMs + leaseMs)
        claimed.push({ delivery: d, leaseKey })
      }
      if (ops.length > 0) await this.store.batch(ops)
      return { claimed, next }
    })
  }

  /**
   * When the earliest pending entry comes due (a lease's end included), or null when none is pending: one read, no
   * lock.
   */
  async nextDue(): Promise<number | null> {
    const [first] = await this.store.list('whq', 1)
    return first ? dueAt(first.key) : null
  }

  /** The outcome of one attempt: delivered, failed for good, or another attempt at `retryAt`. */
  async settle(
    c: Claimed,
    outcome: { statusCode: number | null; error: string | null; delivered: boolean; retryAt: number | null },
  ): Promise<Delivery> {
    const d = c.delivery
    const status: DeliveryStatus = outcome.delivered ? 'delivered' : outcome.retryAt === null ? 'failed' : 'pending'
    const next: Delivery = {
      ...d,
      status,
      attempts: d.attempts + 1,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      nextAt: status === 'pending' ? outcome.retryAt : null,
    }
    const ops: Op[] = [
      { type: 'del', key: c.leaseKey },
      { type: 'put', key: deliveryKey(d.webhookId, d.eventId), value: next },
    ]
    if (status === 'pending') ops.push({ type: 'put', key: dueKey(outcome.retryAt!, d.webhookId, d.eventId), value: 1 })
    else ops.push({ type: 'del', key: fifoKey(d.webhookId, d.orderKey, d.eventId) })
    await this.store.batch(ops)
    return next
  }

  /** Gives a claimed delivery back, due now, its attempt not counted (this process is stopping). */
  async release(c: Claimed, nowMs: number): Promise<void> {
    await this.store.batch([
      { type: 'del', key: c.leaseKey },
      { type: 'put', key: dueKey(nowMs, c.delivery.webhookId, c.delivery.eventId), value: 1 },
    ])
  }

  /** The newest deliveries of a webhook, newest first. */
  async latest(webhookId: string, limit: number): Promise<Delivery[]> {
    return (await this.store.list<Delivery>(key('whd', webhookId), limit)).map((r) => r.value)
  }

  /** Settled deliveries beyond the newest `keep` of a webhook are dropped (pending ones stay). */
  async trim(webhookId: string, keep: number): Promise<void> {
    const all = await this.store.list<Delivery>(key('whd', webhookId), keep + 500)
    const old = all.slice(keep).filter((r) => r.value.status !== 'pending')
    if (old.length > 0) await this.store.batch(old.map((r) => ({ type: 'del', key: r.key })))
  }

  /** Pending deliveries (the outbox depth), counted up to `cap`. */
  async depth(cap: number): Promise<number> {
    return (await this.store.list('whq', cap)).length
  }
}
