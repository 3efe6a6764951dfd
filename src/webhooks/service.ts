// Webhooks in a server: the dispatcher sending what the outbox holds, and the document.updated
// windows on the group committer. Events of other changes are recorded with emit.ts, in the
// change's own batch. Registrations are cached here (who watches what), refreshed when this
// process writes one, when a cluster peer announces one (src/cluster/control-notices.ts) and
// periodically for other processes' writes (the admin CLI, a lost announcement).
import type { GroupCommitter } from '../collab/group-commit.js'
import type { HookedControlStore } from '../control/hooked-store.js'
import type { Config } from '../infra/config.js'
import type { Logger } from '../infra/log.js'
import type { Registry } from 'prom-client'
import type { DocStore } from '../storage/doc-store.js'
import { Dispatcher } from './dispatcher.js'
import { DocWindows, type ClosedWindow } from './doc-windows.js'
import type { EventType } from '@tandem/api/webhook-events'
import { eventId, type OutboxEvent } from './events.js'
import { createWebhookMetrics } from './metrics.js'
import { Outbox } from './outbox.js'
import { allWebhooks, WEBHOOK_KIND, type WebhookRecord } from './records.js'
import { createHash } from 'node:crypto'

/** How often a cluster node looks for marks of windows a dead node left open, and how old they must be. */
const ORPHAN_SWEEP_MS = 10_000
const ORPHAN_AGE_MS = 30_000

export interface WebhooksOptions {
  control: HookedControlStore
  docs: DocStore
  config: Config
  log: Logger
  registry: Registry
  now: () => number
}

export class Webhooks {
  readonly outbox: Outbox
  private hooks = new Map<string, WebhookRecord>()
  /** workspaces with a document.updated webhook: the write path's only question */
  private watching = new Set<string>()
  private readonly windows: DocWindows
  private readonly dispatcher: Dispatcher
  private refreshTimer: NodeJS.Timeout | undefined
  /** the re-read running, and the one asked for meanwhile (shared by every caller) */
  private reading: Promise<void> | null = null
  private next: Promise<void> | null = null
  private sweepTimer: NodeJS.Timeout | undefined

  constructor(private readonly o: WebhooksOptions) {
    this.outbox = new Outbox(o.control)
    const metrics = createWebhookMetrics(
      o.registry,
      () => this.outbox.depth(100_000),
      () => this.hooks.size,
    )
    this.windows = new DocWindows(o.docs, {
      debounceMs: o.config.webhookDebounceMs,
      watched: (org) => this.watching.has(org),
      emit: (w) => this.emitWindow(w),
      onError: (err) => o.log.error({ err }, 'document.updated event not recorded; kept for the next start'),
    })
    this.dispatcher = new Dispatcher({
      outbox: this.outbox,
      webhook: (id) => this.hooks.get(id),
      idle: () => this.hooks.size === 0,
      timeoutMs: o.config.webhookTimeoutMs,
      retryMs: o.config.webhookRetryHours * 3600_000,
      allowPrivate: o.config.webhookAllowPrivate,
      now: o.now,
      log: o.log,
      metrics,
    })
  }

  /** Loads registrations, records events of windows a killed process left open, starts sending. */
  async start(committer: GroupCommitter): Promise<void> {
    await this.refresh()
    this.o.control.addHook({
      after: async (ops) => {
        if (ops.some((op) => op.key.startsWith(`${WEBHOOK_KIND}/`)))
          await this.refresh().catch((err) => this.o.log.error({ err }, 'webhook registrations refresh failed'))
        if (ops.some((op) => op.key.startsWith('whq/'))) this.dispatcher.wake()
      },
    })
    this.refreshTimer = setInterval(
      () => this.refresh().catch((err) => this.o.log.warn({ err }, 'webhook registrations refresh failed')),
      this.o.config.webhookRefreshSec * 1000,
    )
    this.refreshTimer.unref()
    committer.addSink(this.windows)
    // One process: every mark is a window of an earlier life. A cluster: only marks far older
    // than any live window (other nodes' windows are open right now), then periodically.
    const clustered = this.o.config.redisUrl !== ''
    const orphanAge = () => this.o.now() - this.o.config.webhookDebounceMs - ORPHAN_AGE_MS
    const recovered = await this.windows.recover(clustered ? orphanAge() : Infinity)
    if (recovered > 0) this.o.log.info({ windows: recovered }, 'document.updated windows recovered from marks')
    if (clustered) {
      this.sweepTimer = setInterval(() => {
        this.windows
          .recover(orphanAge())
          .catch((err) => this.o.log.warn({ err }, 'orphaned document.updated marks not recovered'))
      }, ORPHAN_SWEEP_MS)
      this.sweepTimer.unref()
    }
    this.dispatcher.start()
  }

  /**
   * Re-reads the registrations (this process wrote one, a cluster peer announced one, or the
   * periodic poll). One at a time: one asked for while another runs reads again after it, so an
   * older read never lands last.
   */
  refresh(): Promise<void> {
    if (this.reading) {
      return (this.next ??= this.reading
        .catch(() => undefined)
        .then(() => {
          this.next = null
          return this.refresh()
        }))
    }
    this.reading = this.read().finally(() => (this.reading = null))
    return this.reading
  }

  private async read(): Promise<void> {
    const all = await allWebhooks(this.o.control)
    const first = this.hooks.size === 0 && all.length > 0
    this.hooks = new Map(all.map((w) => [w.id, w]))
    this.watching = new Set(all.filter((w) => w.events.includes('document.updated')).map((w) => w.workspaceId))
    // With no webhook the dispatcher sleeps without a timer; the first one wakes it.
    if (first) this.dispatcher.wake()
  }

  private subscribers(workspaceId: string, type: EventType): WebhookRecord[] {
    return [...this.hooks.values()].filter((w) => w.workspaceId === workspaceId && w.events.includes(type))
  }

  private async emitWindow(w: ClosedWindow): Promise<void> {
    // the id comes from the mark, so a window recovered after a crash keeps its id
    const id = eventId(w.since, createHash('sha256').update(w.markKey).digest('hex').slice(0, 12))
    const subs = this.subscribers(w.org, 'document.updated')
    const fresh = []
    for (const s of subs) if (!(await this.outbox.has(s.id, id))) fresh.push(s)
    if (fresh.length === 0) return
    const event: OutboxEvent<'document.updated'> = {
      id,
      type: 'document.updated',
      workspaceId: w.org,
      orderKey: w.doc,
      at: this.o.now(),
      data: {
        asset_id: w.doc,
        workspace_id: w.org,
        org: w.org,
        doc_id: w.doc,
        users: w.users,
        first_at_ms: w.firstAt,
        last_at_ms: w.lastAt,
      },
    }
    await this.o.control.batch(this.outbox.eventOps(event, fresh))
  }

  /** Open windows are recorded now; attempts in flight finish; nothing new is claimed. */
  async close(): Promise<void> {
    clearInterval(this.refreshTimer)
    clearInterval(this.sweepTimer)
    await this.windows.flush()
    await this.dispatcher.stop()
  }
}
