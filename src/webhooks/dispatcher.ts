// Sends due deliveries: a bounded number in flight (a slow receiver holds a slot, never the write
// path), each attempt leased in the outbox so exactly one process sends it, then settled as
// delivered, retried with exponential backoff and jitter, or failed after the retry window.
// It sleeps until something may be due: an event recorded here or a settled attempt wakes it, a
// timer wakes it when the earliest queued entry (a retry, a lease running out) comes due, and a
// slow fallback finds what other processes queued (the admin CLI, a node that died).
import { backoffMs as backoff } from '../infra/backoff.js'
import type { Logger } from '../infra/log.js'
import { attempt } from './deliver.js'
import type { WebhookMetrics } from './metrics.js'
import type { Claimed, Outbox } from './outbox.js'
import type { WebhookRecord } from './records.js'
import { signedHeaders } from './signing.js'

const CONCURRENCY = 16
/** Deliveries another process queued without telling this one are found within this time. */
const FALLBACK_MS = 5000
const FIRST_RETRY_MS = 1000
const MAX_RETRY_MS = 60 * 60 * 1000 // 1 h
const KEEP_SETTLED = 1000

export interface DispatcherOptions {
  outbox: Outbox
  webhook(id: string): WebhookRecord | undefined
  /** no webhook registered anywhere: the outbox is not even looked at */
  idle(): boolean
  timeoutMs: number
  retryMs: number
  allowPrivate: boolean
  now: () => number
  log: Logger
  metrics: WebhookMetrics
  /** ms between looks at the outbox while nothing is known to come due (default FALLBACK_MS) */
  fallbackMs?: number
}

/** ms until attempt n+1 after n failed attempts: doubling from 1 s up to 1 h, with +-50 % jitter. */
export function backoffMs(attempts: number, random = Math.random()): number {
  return backoff(attempts - 1, { firstMs: FIRST_RETRY_MS, maxMs: MAX_RETRY_MS }, random)
}

/**
 * How long a claimed delivery is left to its process: twice the attempt's bound, so only a dead or stuck process loses
 * it.
 */
export const leaseMs = (timeoutMs: number) => 2 * timeoutMs + 1000

export class Dispatcher {
  private inflight = 0
  private polling = false
  private again = false
  private started = false
  private stopped = false
  private timer: NodeJS.Timeout | undefined
  private readonly sending = new Set<Promise<void>>()
  private settledSince = 0
  /** aborts the attempts in flight when the process stops */
  private readonly stopping = new AbortController()

  constructor(private readonly o: DispatcherOptions) {}

  start(): void {
    this.started = true
    this.wake()
  }

  /** Something may be due now (an event was recorded here, a delivery settled, a webhook registered). */
  wake(): void {
    if (!this.started || this.stopped) return
    if (this.polling) {
      this.again = true
      return
    }
    this.polling = true
    void this.poll().finally(() => {
      this.polling = false
      if (this.again) {
        this.again = false
        this.wake()
      }
    })
  }

  /**
   * Claims what is due, then sleeps until the next entry comes due or the fallback. Nothing is
   * armed while every slot is busy (a settle wakes it) or no webhook is registered (a registration
   * does: Webhooks.refresh).
   */
  private async poll(): Promise<void> {
    const free = CONCURRENCY - this.inflight
    if (free <= 0 || this.o.idle()) return
    let next: number | null = null
    let claimed: Claimed[] = []
    try {
      const now = this.o.now()
      // A look without the claim's lock first: an idle outbox costs one read per wake.
      next = await this.o.outbox.nextDue()
      if (next !== null && next <= now)
        ({ claimed, next } = await this.o.outbox.claim(
          now,
          free,
          leaseMs(this.o.timeoutMs),
          (id) => this.o.webhook(id) !== undefined,
        ))
    } catch (err) {
      this.o.log.error({ err }, 'webhook outbox claim failed')
      next = null
    }
    this.arm(next)
    for (const c of claimed) {
      this.inflight++
      const p = this.send(c).finally(() => {
        this.inflight--
        this.sending.delete(p)
        this.wake()
      })
      this.sending.add(p)
    }
  }

  /** One timer: at `at` (an entry comes due) or after the fallback, whichever is sooner. */
  private arm(at: number | null): void {
    clearTimeout(this.timer)
    if (this.stopped) return
    const fallback = this.o.fallbackMs ?? FALLBACK_MS
    const delay = at === null ? fallback : Math.min(fallback, Math.max(0, at - this.o.now()))
    this.timer = setTimeout(() => this.wake(), delay)
    this.timer.unref()
  }

  private async send(c: Claimed): Promise<void> {
    const d = c.delivery
    const hook = this.o.webhook(d.webhookId)
    if (!hook) return
    const r = await attempt(hook.url, signedHeaders(hook.secret, d.eventId, this.o.now(), d.body), d.body, {
      timeoutMs: this.o.timeoutMs,
      allowPrivate: this.o.allowPrivate,
      signal: this.stopping.signal,
    })
    if (this.stopping.signal.aborted) {
      // stopping: the delivery goes back to the queue at once rather than waiting out its lease
      await this.o.outbox
        .release(c, this.o.now())
        .catch((err) =>
          this.o.log.warn({ err, event: d.eventId }, 'webhook delivery not released; its lease will run out'),
        )
      return
    }
    const now = this.o.now()
    const retryAt = now + backoffMs(d.attempts + 1)
    const giveUp = retryAt > d.createdAt + this.o.retryMs
    const outcome = r.ok ? 'delivered' : giveUp ? 'failed' : 'retry'
    this.o.metrics.deliveries.inc({ status: outcome })
    if (r.ok) this.o.metrics.latency.observe(Math.max(0, now - d.createdAt) / 1000)
    if (!r.ok)
      this.o.log.warn(
        {
          webhook: d.webhookId,
          event: d.eventId,
          status: r.statusCode,
          error: r.error,
          attempts: d.attempts + 1,
          outcome,
        },
        'webhook delivery not accepted',
      )
    try {
      await this.o.outbox.settle(c, {
        delivered: r.ok,
        statusCode: r.statusCode,
        error: r.error,
        retryAt: r.ok || giveUp ? null : retryAt,
      })
      if (++this.settledSince >= KEEP_SETTLED / 10) {
        this.settledSince = 0
        await this.o.outbox.trim(d.webhookId, KEEP_SETTLED)
      }
    } catch (err) {
      // the lease runs out and the delivery is sent again: at least once
      this.o.log.error({ err, webhook: d.webhookId, event: d.eventId }, 'webhook delivery outcome not recorded')
    }
  }

  /** Stops claiming; attempts in flight are cut short and their deliveries given back (sent again, same id). */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    this.stopping.abort()
    await Promise.allSettled([...this.sending])
  }
}
