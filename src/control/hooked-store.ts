// A control store with batch hooks, over either backend: every write of every path (API, admin,
// demo seed, sweeper) passes the hooks, so derived records (token revocations implied by a grant
// change) land in the same atomic batch as the change itself.
import type { BatchHook, ControlRecord, ControlStore, Op } from './store.js'

export class HookedControlStore implements ControlStore {
  private readonly hooks: BatchHook[] = []

  constructor(readonly inner: ControlStore) {}

  addHook(hook: BatchHook): void {
    this.hooks.push(hook)
  }

  get<T>(k: string): Promise<T | undefined> {
    return this.inner.get<T>(k)
  }

  getMany<T>(keys: string[]): Promise<(T | undefined)[]> {
    return this.inner.getMany<T>(keys)
  }

  async batch(ops: Op[]): Promise<void> {
    let all = ops
    for (const h of this.hooks) if (h.prepare) all = [...all, ...(await h.prepare(all))]
    if (all.length === 0) return
    await this.inner.batch(all)
    // Inside a PostgreSQL serial() the batch is not yet committed: a hook telling other nodes
    // now would have them re-read the old records (and hear of writes a rollback undoes).
    await this.inner.afterCommit(async () => {
      for (const h of this.hooks) await h.after?.(all)
    })
  }

  list<T>(prefix: string, limit?: number): Promise<ControlRecord<T>[]> {
    return this.inner.list<T>(prefix, limit)
  }

  scan(after: string, limit: number): Promise<ControlRecord[]> {
    return this.inner.scan(after, limit)
  }

  serial<T>(k: string, fn: () => Promise<T>): Promise<T> {
    return this.inner.serial(k, fn)
  }

  afterCommit(fn: () => Promise<void>): Promise<void> {
    return this.inner.afterCommit(fn)
  }
}
