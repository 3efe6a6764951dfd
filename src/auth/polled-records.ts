// A control-plane prefix read into memory and kept fresh: re-read when this process writes to it
// (the writer calls refresh) and every period for writes of other processes sharing the control
// plane. A version record, rewritten with every change, makes the periodic refresh one `get`
// while nothing changed. Listeners hear the records that are new or changed after each refresh.

/** What the control plane offers the cache: the get/list half of the control store's API. */
export interface RecordSource {
  get<T>(key: string): Promise<T | undefined>
  list<T>(prefix: string): Promise<{ key: string; value: T }[]>
}

export class PolledRecords<T> {
  private byKey = new Map<string, string>()
  private version: string | null = null
  private running: Promise<T[]> | null = null
  private timer: NodeJS.Timeout | undefined
  private readonly listeners = new Set<(changed: T[], initial: boolean) => void>()

  constructor(
    private readonly source: RecordSource,
    private readonly prefix: string,
    private readonly versionKey: string,
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

  private async load(force: boolean): Promise<T[]> {
    const v = await this.source.get<unknown>(this.versionKey)
    const version = v === undefined ? '' : JSON.stringify(v)
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

  /** Loads once, then refreshes every `periodMs` (errors are reported, the last records stay). */
  async start(periodMs: number, onError: (err: unknown) => void): Promise<void> {
    await this.refresh(true)
    this.timer = setInterval(() => void this.refresh().catch(onError), periodMs)
    this.timer.unref()
  }

  /** Stops the periodic refresh and waits for one in flight (the store may close next). */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.running?.catch(() => undefined)
  }

  get size(): number {
    return this.byKey.size
  }
}
