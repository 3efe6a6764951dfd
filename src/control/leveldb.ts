// The control store on the data dir's LevelDB (one process): a `control` sublevel of JSON values,
// batches as LevelDB batches, serial() as an in-process queue per key.
import type { AbstractSublevel } from 'abstract-level'
import type { RootDb } from '../infra/data-dir.js'
import { KeyQueue } from '../infra/key-queue.js'
import { prefixRange, type ControlStore, type Op, type ControlRecord } from './store.js'

type Sub = AbstractSublevel<RootDb, string | Buffer | Uint8Array, string, unknown>

export class LevelControlStore implements ControlStore {
  private readonly db: Sub
  private readonly queue = new KeyQueue()

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

  async batch(ops: Op[]): Promise<void> {
    if (ops.length > 0) await this.db.batch(ops)
  }

  async list<T>(prefix: string, limit = 100_000): Promise<ControlRecord<T>[]> {
    const out: ControlRecord<T>[] = []
    for await (const [k, v] of this.db.iterator({ ...prefixRange(prefix), limit })) out.push({ key: k, value: v as T })
    return out
  }

  async scan(after: string, limit: number): Promise<ControlRecord[]> {
    const out: ControlRecord[] = []
    for await (const [k, v] of this.db.iterator({ gt: after, limit })) out.push({ key: k, value: v })
    return out
  }

  serial<T>(k: string, fn: () => Promise<T>): Promise<T> {
    return this.queue.run(k, fn)
  }

  /** A LevelDB batch is committed when it resolves. */
  afterCommit(fn: () => Promise<void>): Promise<void> {
    return fn()
  }
}
