// The open databases of this process, one entry per database asset, and their availability:
//   starting   an instance is opening (a PGlite worker starting, initdb on first use)
//   ready      statements run, through the entry's gate (concurrency + queue limits)
//   suspended  closed after being idle, or to make room under the PGlite memory budget; the next
//              request resumes it
// A request that finds its database starting or suspended waits up to `startWaitMs`, then answers
// 503 with Retry-After (the resume goes on). A refused statement (gate full, not started) never ran.
import { assertProviderAllowed } from '../cluster/pglite-guard.js'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../infra/errors.js'
import type { CatalogStatement } from './catalog.js'
import { Database } from './database.js'
import { isDbError } from './db-error.js'
import { fingerprintOf, holdsPglite, newEntry, phaseOf, type Entry, type Phase } from './entry.js'
import { GateRefused } from './gate.js'
import type { DbInstance, SqlResult } from './instance.js'
import { openProviderInstance } from './provider-instance.js'
import type { ManagedPostgres } from './managed/provision.js'
import { pgliteDirName, PROVIDERS, type DatabaseAsset, type RegistryOptions, type Unavailable } from './options.js'
import { dataDirPath } from '../infra/data-dir.js'

export { DEFAULT_PROVIDER, pgliteDirName, registryOptions } from './options.js'
export type { DatabaseAsset, RegistryOptions, Unavailable } from './options.js'
export { Database } from './database.js'
export type { Phase } from './entry.js'

export class DatabaseRegistry {
  private readonly entries = new Map<string, Entry>()
  private readonly now: () => number
  private closed = false

  constructor(private readonly o: RegistryOptions) {
    this.now = o.now ?? Date.now
  }

  /** Tandem's own PostgreSQL, where new database assets are made by default; absent without --postgres-url. */
  get managed(): ManagedPostgres | undefined {
    return this.o.managed
  }

  /** What a new database asset gets when no provider is asked for. */
  get defaultProvider(): string {
    return this.o.managed ? 'postgres' : 'pglite'
  }

  get clusterMode(): boolean {
    return this.o.clusterMode === true
  }

  /** The database of an asset. 501 for a provider this server does not run. */
  database(asset: DatabaseAsset): Database {
    if (!(PROVIDERS as readonly string[]).includes(asset.provider)) {
      throw new AppError('not_implemented', `database provider ${JSON.stringify(asset.provider)} is not supported`)
    }
    assertProviderAllowed(asset.provider, this.o.clusterMode === true)
    if (asset.provider === 'postgres' && !asset.connectionUrl)
      throw this.unavailable('unconfigured', 'database asset has no connection URL configured')
    if (this.closed) throw this.unavailable('closing', 'server is shutting down')
    const fingerprint = fingerprintOf(asset)
    let entry = this.entries.get(asset.id)
    if (entry && entry.fingerprint !== fingerprint) {
      // The asset's settings changed: retire the old instance, start afresh.
      void this.retire(entry) // never rejects: a close that fails is logged
      entry = undefined
    }
    if (!entry) {
      entry = newEntry(asset, this.o, this.now, (e, s) => this.json(e, s))
      this.entries.set(asset.id, entry)
    }
    return new Database({
      provider: entry.provider,
      schema: entry.schema,
      run: (stmt) => this.run(entry, stmt),
      json: (stmt) => this.json(entry, stmt),
      script: (sql) => this.script(entry, sql),
      ready: () => this.openNow(entry),
    })
  }

  status(assetId: string): { phase: Phase; active: number; queued: number } | undefined {
    const e = this.entries.get(assetId)
    if (!e) return undefined
    return { phase: phaseOf(e), active: e.gate.active, queued: e.gate.queued }
  }

  /** Number of PGlite instances open or opening (the memory budget counts these). */
  get openPglite(): number {
    let n = 0
    for (const e of this.entries.values()) if (holdsPglite(e)) n++
    return n
  }

  /** Suspends an idle database now (as the idle timer would). False when it is busy. */
  async suspend(assetId: string): Promise<boolean> {
    const e = this.entries.get(assetId)
    if (!e || !e.gate.idle || e.opening) return false
    await this.suspendEntry(e)
    return true
  }

  /**
   * Drops a database asset's data for good (hard delete): its instance is closed, then a PGlite
   * asset's directory is removed. A `postgres` asset's connection URL names a database its owner
   * runs: only the pool closes, the database is theirs. Where Tandem keeps database assets in its
   * own PostgreSQL, their schema is dropped here too.
   */
  async dropData(asset: DatabaseAsset): Promise<void> {
    const entry = this.entries.get(asset.id)
    if (entry) await this.retire(entry)
    if (asset.provider === 'pglite')
      await rm(join(dataDirPath(this.o.dataDir, 'pglite'), pgliteDirName(asset.id)), { recursive: true, force: true })
    // a managed asset's database and role are Tandem's (named after the asset): an external one's are its owner's
    if (asset.provider === 'postgres' && this.o.managed) await this.o.managed.drop(asset.id)
  }

  async close(): Promise<void> {
    this.closed = true
    const all = [...this.entries.values()]
    this.entries.clear()
    await Promise.all(all.map((e) => this.retire(e)))
  }

  // ---- statements ----

  run(entry: Entry, stmt: CatalogStatement): Promise<SqlResult> {
    return this.gated(entry, (instance) => instance.query(stmt.text, stmt.values))
  }

  script(entry: Entry, sql: string): Promise<void> {
    return this.gated(entry, (instance) => instance.script(sql))
  }

  /** Runs `fn` once the database is open and the gate admits it; maps availability failures to 503s. */
  private async gated<T>(entry: Entry, fn: (instance: DbInstance) => Promise<T>): Promise<T> {
    entry.lastUsed = this.now()
    try {
      await this.whenReady(entry)
      return await entry.gate.run(async () => {
        const instance = await this.open(entry)
        try {
          return await fn(instance)
        } finally {
          entry.lastUsed = this.now()
        }
      })
    } catch (e) {
      if (e instanceof GateRefused)
        throw e.reason === 'closed'
          ? this.unavailable('closing', 'database is closing')
          : this.unavailable('saturated', e.message)
      if (isDbError(e)) {
        if (e.kind === 'unreachable') throw this.unavailable('unreachable', e.message)
        if (e.kind === 'deadline') throw this.unavailable('deadline', e.message)
        if (e.kind === 'crashed') {
          // The reason (paths, engine messages) is for the log, not the caller.
          this.o.log.warn({ asset: entry.id, err: e.message }, 'embedded database failed')
          throw this.unavailable('crashed', 'database is restarting')
        }
      }
      throw e
    } finally {
      this.armIdle(entry)
    }
  }

  /** The single JSON text value a compiled statement returns. */
  async json(entry: Entry, stmt: CatalogStatement): Promise<string> {
    const r = await this.run(entry, stmt)
    return String(r.rows[0]?.[0] ?? 'null')
  }

  private async whenReady(entry: Entry): Promise<void> {
    if (entry.instance) return
    const resuming = entry.everOpened
    const opening = this.open(entry)
    let timer: NodeJS.Timeout | undefined
    const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.o.startWaitMs)))
    try {
      if (await Promise.race([opening.then(() => true as const), waited])) return
    } finally {
      clearTimeout(timer)
    }
    throw resuming
      ? this.unavailable('suspended', 'database is suspended and resuming')
      : this.unavailable('starting', 'database is starting')
  }

  async openNow(entry: Entry): Promise<void> {
    try {
      await this.open(entry)
    } catch (e) {
      if (!isDbError(e)) throw e
      this.o.log.warn({ asset: entry.id, err: e.message }, 'database failed to start')
      throw this.unavailable('crashed', 'database failed to start')
    }
  }

  private open(entry: Entry): Promise<DbInstance> {
    if (entry.instance) return Promise.resolve(entry.instance)
    if (!entry.opening) {
      const p = this.start(entry)
      entry.opening = p
      const clear = () => {
        if (entry.opening === p) entry.opening = null
      }
      p.then(clear, clear)
    }
    return entry.opening
  }

  private async start(entry: Entry): Promise<DbInstance> {
    if (entry.closing) await entry.closing // never two instances of one database
    if (entry.retired || this.closed) throw this.unavailable('closing', 'database is closing')
    if (entry.provider === 'pglite') await this.makeRoom(entry)
    const instance = await openProviderInstance(entry, this.o, this.now)
    if (entry.retired || this.closed) {
      await instance.close()
      throw this.unavailable('closing', 'database is closing')
    }
    instance.onExit(() => {
      if (entry.instance !== instance) return
      entry.instance = null
      entry.schema.invalidate()
      this.o.log.warn(
        { asset: entry.id },
        'database instance stopped (deadline or crash); it restarts on the next request',
      )
    })
    entry.instance = instance
    entry.everOpened = true
    this.armIdle(entry)
    return instance
  }

  /** Keeps the number of open PGlite instances within budget by suspending the least recently used idle ones. */
  private async makeRoom(entry: Entry): Promise<void> {
    const others = [...this.entries.values()].filter((e) => e !== entry && holdsPglite(e))
    const excess = others.length - this.o.pgliteMaxOpen + 1
    if (excess <= 0) return
    const idle = others.filter((e) => e.instance && !e.closing && e.gate.idle).sort((a, b) => a.lastUsed - b.lastUsed)
    if (idle.length < excess)
      throw this.unavailable('saturated', 'database saturated: too many embedded databases are busy')
    await Promise.all(idle.slice(0, excess).map((e) => this.suspendEntry(e)))
  }

  private suspendEntry(entry: Entry): Promise<void> {
    clearTimeout(entry.idleTimer)
    if (entry.closing) return entry.closing
    const instance = entry.instance
    if (!instance) return Promise.resolve()
    entry.instance = null
    const p: Promise<void> = instance
      .close()
      .catch((err: unknown) =>
        this.o.log.warn({ asset: entry.id, err: (err as Error).message }, 'database close failed'),
      )
      .finally(() => {
        if (entry.closing === p) entry.closing = null
      })
    entry.closing = p
    this.o.log.info({ asset: entry.id, provider: entry.provider }, 'database suspended')
    return p
  }

  /** Idle PGlite instances are suspended to give their memory back; a postgres pool idles by itself. */
  private armIdle(entry: Entry): void {
    clearTimeout(entry.idleTimer)
    if (!entry.instance || entry.retired || entry.provider !== 'pglite') return
    entry.idleTimer = setTimeout(() => {
      if (entry.instance && entry.gate.idle && !entry.retired) void this.suspendEntry(entry)
      else this.armIdle(entry)
    }, this.o.idleMs)
    entry.idleTimer.unref()
  }

  private async retire(entry: Entry): Promise<void> {
    entry.retired = true
    if (this.entries.get(entry.id) === entry) this.entries.delete(entry.id)
    clearTimeout(entry.idleTimer)
    entry.gate.drain()
    await entry.opening?.catch(() => undefined)
    await this.suspendEntry(entry)
  }

  private unavailable(reason: Unavailable, message: string): AppError {
    this.o.onUnavailable?.(reason)
    return new AppError('unavailable', message, { retryAfterSec: this.o.retryAfterSec })
  }

  /** Open instances by provider, statements running and waiting: for metrics. */
  stats(): { open: Record<string, number>; active: number; queued: number } {
    const open: Record<string, number> = { pglite: 0, postgres: 0 }
    let active = 0
    let queued = 0
    for (const e of this.entries.values()) {
      if (e.instance) open[e.provider] = (open[e.provider] ?? 0) + 1
      active += e.gate.active
      queued += e.gate.queued
    }
    return { open, active, queued }
  }
}
