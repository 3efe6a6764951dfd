// A control-plane prefix read into memory and kept fresh: re-read when this process writes to it
// (the writer calls refresh) and every period for writes of other processes sharing the control
// plane. A version record, rewritten with every change, makes the periodic check one read while
// nothing changed, and the caches of a server share it (VersionPoll): one `getMany` of all their
// version records a period. Listeners hear the records that are new or changed after each refresh.

/** What the control plane offers the cache: the read half of the control store's API. */
export interface RecordSource {
  get<T>(key: string): Promise<T | undefined>
  getMany<T>(keys: string[]): Promise<(T | undefined)[]>
  list<T>(prefix: string): Promise<{ key: string; value: T }[]>
}

const versionOf = (v: unknown): string => (v === undefined ? '' : JSON.stringify(v))

/**
 * The periodic check of several caches: one timer and one read of every version record a period
 * (one statement on PostgreSQL, where each cache had its own), then a refresh of only the caches
 * whose version moved.
 */
export class VersionPoll {
  private readonly members = new Map<PolledRecords<unknown>, (err: unknown) => void>()
  private timer: NodeJS.Timeout | undefined
  private checking = false

  constructor(
    private readonly source: RecordSource,
    private readonly periodMs: number,
  ) {}

  add(records: PolledRecords<unknown>, onError: (err: unknown) => void): void {
    this.members.set(records, onError)
    if (this.timer) return
    this.timer = setInterval(() => void this.check(), this.periodMs)
    this.timer.unref()
  }

  remove(records: PolledRecords<unknown>): void {
    this.members.delete(records)
    if (this.members.size > 0) return
    clearInterval(this.timer)
    this.timer = undefined
  }

  private async check(): Promise<void> {
    if (this.checking) return
    this.checking = true
    const members = [...this.members]
    try {
      const versions = await this.source.getMany(members.map(([r]) => r.versionKey))
      members.forEach(([r, onError], i) => {
        if (r.movedFrom(versions[i])) r.refresh().catch(onError)
      })
    } catch (err) {
      for (const [, onError] of members) onError(err)
    } finally {
      this.checking = false
    }
  }
}

export class PolledRecords<T> {
  private byKey = new Map<string, string>()
  private version: string | null = null
  private running: Promise<T[]> | null = null
  private poll: VersionPoll | undefined
  private readonly listeners = new Set<(changed: T[], initial: boolean) => void>()

  constructor(
    private readonly source: RecordSource,
    private readonly prefix: string,
    readonly versionKey: string,
    /** Replaces the reader's index with every record, after each re-read that found a new version. */
    private readonly index: (rows: T[]) => void,
  ) {}

  /** Called with the records that are new or changed after each refresh (`initial`: the first load). */
  onChange(fn: (changed: T[], initial: boolean) => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  /**
   * Re-reads the records (only when the version record moved, unless `force`). Refreshes run one
   * at a time; one asked for while another runs runs again after it, so no write is missed.
   */
  refresh(force = false): Promise<T[]> {
    if (this.running) return this.running.then(() => this.refresh(force))
    this.running = this.load(force).finally(() => {
      this.running = null
    })
    return this.running
  }

  /** Whether `v`, the version record as read now, differs from the one of the records held. */
  movedFrom(v: unknown): boolean {
    return versionOf(v) !== this.version
  }

  private async load(force: boolean): Promise<T[]> {
    const version = versionOf(await this.source.get<unknown>(this.versionKey))
    if (!force && version === this.version) return []
    const initial = this.version === null
    const rows = await this.source.list<T>(this.prefix)
    const byKey = new Map<string, string>()
    const changed: T[] = []
    for (const { key, value } of rows) {
      const json = JSON.stringify(value)
      byKey.set(key, json)
      if (this.byKey.get(key) !== json) changed.push(value)
    }
    this.index(rows.map((r) => r.value))
    this.byKey = byKey
    this.version = version
    if (changed.length > 0) for (const fn of this.listeners) fn(changed, initial)
    return changed
  }

  /** Loads once, then is checked by `poll` every period (errors are reported, the last records stay). */
  async start(poll: VersionPoll, onError: (err: unknown) => void): Promise<void> {
    await this.refresh(true)
    this.poll = poll
    poll.add(this as PolledRecords<unknown>, onError)
  }

  /** Leaves the periodic check and waits for a refresh in flight (the store may close next). */
  async stop(): Promise<void> {
    this.poll?.remove(this as PolledRecords<unknown>)
    await this.running?.catch(() => undefined)
  }

  get size(): number {
    return this.byKey.size
  }
}
