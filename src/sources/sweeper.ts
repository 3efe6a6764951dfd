// The background site sweep: for each unfinished sweep, page through the connector (persisting every
// page and the next cursor in one batch), then mark the sites searchable one by one (persisting each
// step). A restarted server calls start() and every sweep continues from its last persisted step.
import { backoffMs, type Backoff } from '../infra/backoff.js'
import type { Logger } from '../infra/log.js'
import { getSource, listSweeps, siteKey, sweepKey, sweepLock, type Site, type Sweep } from './records.js'
import type { ControlStore } from '../control/store.js'
import type { ConnectorFactory } from './connector.js'
import { sleep } from './graph-connector.js'

export interface SweeperOptions {
  /** pause between two sites made searchable, and between pages (ms) */
  stepDelayMs: number
  now: () => number
  log: Logger
  connectors: ConnectorFactory
}

const MAX_FAILURES = 5
/** a failed step is retried after 1, 2, 4, 8 s (failures 1..4) */
const STEP_RETRY: Backoff = { firstMs: 500, maxMs: 8_000 }

export class SiteSweeper {
  private readonly running = new Map<string, Promise<void>>()
  private readonly abort = new AbortController()
  private started = false

  constructor(
    private readonly store: ControlStore,
    private readonly opts: SweeperOptions,
  ) {}

  /** Resumes every unfinished sweep. */
  async start(): Promise<void> {
    this.started = true
    for (const sw of await listSweeps(this.store))
      if (sw.phase === 'enumerating' || sw.phase === 'provisioning') this.kick(sw)
  }

  /** Runs the sweep unless it already runs (or the sweeper is not started: start() will pick it up). */
  kick(sw: Pick<Sweep, 'id' | 'userId'>): void {
    if (!this.started || this.abort.signal.aborted || this.running.has(sw.id)) return
    const run = this.run(sw.userId, sw.id)
      .catch((err: unknown) => {
        if (!this.abort.signal.aborted) this.opts.log.error({ err, sweep: sw.id }, 'site sweep stopped')
      })
      .finally(() => this.running.delete(sw.id))
    this.running.set(sw.id, run)
  }

  async close(): Promise<void> {
    this.abort.abort(new Error('sweeper closed'))
    await Promise.allSettled([...this.running.values()])
  }

  private async save(sw: Sweep, sites: Site[] = [], firstSeq = 0): Promise<void> {
    await this.store.batch([
      { type: 'put', key: sweepKey(sw.userId, sw.id), value: sw },
      ...sites.map((site, i) => ({ type: 'put' as const, key: siteKey(sw.id, firstSeq + i), value: site })),
    ])
  }

  private async run(userId: string, id: string): Promise<void> {
    const signal = this.abort.signal
    let failures = 0
    for (;;) {
      if (signal.aborted) return
      // Each step reads the persisted state and writes the next one; the lock keeps admin edits out.
      const done = await this.store.serial(sweepLock(id), async () => {
        const sw = await this.store.get<Sweep>(sweepKey(userId, id))
        if (!sw || sw.phase === 'complete' || sw.phase === 'failed') return true
        try {
          await this.step(sw, signal)
          failures = 0
        } catch (err) {
          if (signal.aborted) return true
          failures++
          this.opts.log.warn({ sweep: id, failures, err: (err as Error).message }, 'site sweep step failed')
          if (failures >= MAX_FAILURES) {
            await this.save({ ...sw, phase: 'failed', error: (err as Error).message, completedAtMs: this.opts.now() })
            return true
          }
        }
        return false
      })
      if (done) return
      await sleep(failures ? backoffMs(failures, STEP_RETRY) : this.opts.stepDelayMs, signal).catch(() => undefined)
    }
  }

  private async step(sw: Sweep, signal: AbortSignal): Promise<void> {
    if (sw.phase === 'enumerating') {
      const source = await getSource(this.store, sw.userId, sw.sourceId)
      if (!source?.connector) {
        await this.save({ ...sw, phase: 'failed', error: 'source disconnected', completedAtMs: this.opts.now() })
        return
      }
      const page = await this.opts.connectors(source.connector).listSites(sw.cursor, signal)
      if (signal.aborted) return
      const sites = page.sites.map((s) => ({ ...s, searchable: false }))
      const enumerated = sw.enumeratedSites + sites.length
      const next: Sweep = page.next
        ? { ...sw, cursor: page.next, enumeratedSites: enumerated }
        : {
            ...sw,
            cursor: null,
            enumeratedSites: enumerated,
            totalSites: enumerated,
            phase: enumerated ? 'provisioning' : 'complete',
            completedAtMs: enumerated ? null : this.opts.now(),
          }
      await this.save(next, sites, sw.enumeratedSites)
      return
    }
    // provisioning: make the next site searchable
    const seq = sw.provisionedSites
    const site = await this.store.get<Site>(siteKey(sw.id, seq))
    const provisioned = seq + 1
    const finished = provisioned >= sw.totalSites
    await this.save(
      {
        ...sw,
        provisionedSites: provisioned,
        ...(finished ? { phase: 'complete', completedAtMs: this.opts.now() } : {}),
      },
      site ? [{ ...site, searchable: true }] : [],
      seq,
    )
  }
}

/** What /me/sources reports: all of the user's live sweeps together, or null when none is live. */
export function provisioningView(sweeps: Sweep[], nowMs: number, windowMs: number) {
  const live = sweeps.filter(
    (s) =>
      s.phase === 'enumerating' ||
      s.phase === 'provisioning' ||
      (s.phase === 'complete' && s.completedAtMs !== null && nowMs - s.completedAtMs < windowMs),
  )
  if (live.length === 0) return null
  const enumerating = live.some((s) => s.phase === 'enumerating')
  return {
    provisionedSites: live.reduce((n, s) => n + s.provisionedSites, 0),
    totalSites: enumerating ? 0 : live.reduce((n, s) => n + s.totalSites, 0),
    status: live.every((s) => s.phase === 'complete') ? ('complete' as const) : ('in_progress' as const),
  }
}
