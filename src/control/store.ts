// The control plane's LevelDB sublevel: JSON records under prefixed string keys, atomic batches,
// and per-key serialisation for read-modify-write updates (tool registry PATCH, sweep progress).
import type { AbstractSublevel } from 'abstract-level'
import type { RootDb } from '../deps.js'

type Sub = AbstractSublevel<RootDb, string | Buffer | Uint8Array, string, unknown>

export type Op = { type: 'put'; key: string; value: unknown } | { type: 'del'; key: string }

/** Keys are `<kind>/<id>[/<id>...]`; ids never contain '/', so a prefix scan never crosses kinds. */
export const key = (...parts: string[]): string => parts.join('/')

/**
 * Watches every batch, whatever path wrote it: `prepare` may add ops that land atomically with the
 * batch (derived records), `after` runs once it is written (in-process notification; the batch
 * resolves after it, so a caller that wrote knows this process has seen it). `after` must not throw:
 * the batch is written by then.
 */
export interface BatchHook {
  prepare?(ops: Op[]): Promise<Op[]>
  after?(ops: Op[]): void | Promise<void>
}

export class ControlStore {
  readonly db: Sub
  private readonly tails = new Map<string, Promise<unknown>>()
  private readonly hooks: BatchHook[] = []

  constructor(root: RootDb) {
    this.db = root.sublevel<string, unknown>('control', { valueEncoding: 'json' })
  }

  async get<T>(k: string): Promise<T | undefined> {
    return (await this.db.get(k)) as T | undefined
  }

  async getMany<T>(keys: string[]): Promise<(T | undefined)[]> {
    if (keys.length === 0) return []
    return (await this.db.getMany(keys)) as (T | undefined)[]
  }

  /** All writes of one admin action go through one batch: they land together or not at all. */
  async batch(ops: Op[]): Promise<void> {
    let all = ops
    for (const h of this.hooks) if (h.prepare) all = [...all, ...(await h.prepare(all))]
    if (all.length === 0) return
    await this.db.batch(all)
    for (const h of this.hooks) await h.after?.(all)
  }

  addHook(hook: BatchHook): void {
    this.hooks.push(hook)
  }

  /** Records whose key starts with `prefix/`, in key order. Bounded by `limit`. */
  async list<T>(prefix: string, limit = 100_000): Promise<{ key: string; value: T }[]> {
    const out: { key: string; value: T }[] = []
    for await (const [k, v] of this.db.iterator({ gt: prefix + '/', lt: prefix + '/\xff', limit })) {
      out.push({ key: k, value: v as T })
    }
    return out
  }

  /** Runs `fn` after every earlier `serial(k, ...)` call has settled: one writer per key at a time. */
  serial<T>(k: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(k) ?? Promise.resolve()
    const run = prev.then(fn, fn)
    const tail = run.then(
      () => undefined,
      () => undefined,
    )
    this.tails.set(k, tail)
    void tail.then(() => {
      if (this.tails.get(k) === tail) this.tails.delete(k)
    })
    return run
  }
}
