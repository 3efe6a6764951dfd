// The control plane's store: JSON records under ordered string keys, atomic batches, and per-key
// serialisation for read-modify-write updates (tool registry PATCH, comment threads, sweep steps).
// Two implementations: LevelDB (leveldb.ts, one process) and PostgreSQL (postgres.ts, any number
// of processes on one database). open.ts chooses by configuration.

export type Op = { type: 'put'; key: string; value: unknown } | { type: 'del'; key: string }

export interface ControlRecord<T = unknown> {
  key: string
  value: T
}

/** Keys are `<kind>/<id>[/<id>...]`; ids never contain '/', so a prefix scan never crosses kinds. */
export const key = (...parts: string[]): string => parts.join('/')

/**
 * Keys order bytewise on their UTF-8 encoding in both backends (LevelDB's order; COLLATE "C" on a
 * UTF8 database). A prefix listing is the key range (prefix + '/', prefix + '0'): '0' follows '/'.
 */
export const prefixRange = (prefix: string) => ({ gt: prefix + '/', lt: prefix + '0' })

export interface ControlStore {
  get<T>(k: string): Promise<T | undefined>
  /** One lookup for many keys; undefined where a key has no record. */
  getMany<T>(keys: string[]): Promise<(T | undefined)[]>
  /** All writes of one action go through one batch: they land together or not at all. Later ops on a key win. */
  batch(ops: Op[]): Promise<void>
  /** Records whose key starts with `prefix/`, in key order. Bounded by `limit`. */
  list<T>(prefix: string, limit?: number): Promise<ControlRecord<T>[]>
  /** Every record with a key above `after`, in key order, at most `limit` (migration, verification). */
  scan(after: string, limit: number): Promise<ControlRecord[]>
  /**
   * Runs `fn` once every earlier `serial(k, ...)` has settled: one read-modify-write of `k` at a
   * time. LevelDB: within the process (the only one). PostgreSQL: across every process on the
   * database, and `fn`'s own reads and writes through this store are one transaction.
   */
  serial<T>(k: string, fn: () => Promise<T>): Promise<T>
  /**
   * Runs `fn` once the writes made so far are committed: at once, or on PostgreSQL inside a
   * serial() at the end of its transaction (serial resolves after `fn`; a rollback drops it).
   * What other processes are told of a write must wait for this, or they read the old records.
   */
  afterCommit(fn: () => Promise<void>): Promise<void>
}

/**
 * Watches every batch, whatever path wrote it: `prepare` may add ops that land atomically with the
 * batch (derived records), `after` runs once it is committed (in-process notification, and the
 * cluster's notices to other nodes; the batch, or the serial() it was part of, resolves after it,
 * so a caller that wrote knows this process has seen it). `after` must not throw: the batch is
 * written by then.
 */
export interface BatchHook {
  prepare?(ops: Op[]): Promise<Op[]>
  after?(ops: Op[]): void | Promise<void>
}
