// The log's appends, written as one batch straight to classic-level's own implementation.
// abstract-level's public batch normalises every operation (an object spread, encodings, hooks,
// events) and a sublevel's chained batch does it twice, once per level: ~8 µs of main-thread CPU
// per update, a tenth of a delivery in the many-rooms bench (docs/perf/rooms.md). Tandem uses
// none of what that buys (no hooks, no write listeners), its keys are utf8 strings prefixed once
// here with the sublevel's own `prefixKey`, and its values are bytes already, which is exactly
// what classic-level's `_batch` takes after the public method's work. Anything else (a database
// not open, one that is not classic-level, a listener for write events) goes the public way.
import type { RootDb } from '../../infra/data-dir.js'

interface Sublevel {
  prefixKey(key: string, format: 'utf8'): string
}

interface NativeBatch {
  _batch(ops: { type: 'put'; key: string; value: Uint8Array | string }[], options: { sync: boolean }): Promise<void>
  status: string
  hooks: { prewrite: { noop: boolean } }
  listenerCount(event: string): number
}

export class LogBatch {
  private readonly ops: { type: 'put'; key: string; value: Uint8Array | string }[] = []

  constructor(private readonly root: RootDb) {}

  /** Queues a put of `key` (a key of `level`, prefixed here) with bytes or a utf8 string. */
  put(level: Sublevel, key: string, value: Uint8Array | string): void {
    this.ops.push({ type: 'put', key: level.prefixKey(key, 'utf8'), value })
  }

  /** Writes every queued put atomically; `sync` fsyncs before it resolves. */
  write(sync: boolean): Promise<void> {
    if (this.ops.length === 0) return Promise.resolve()
    const db = this.root as unknown as NativeBatch
    if (
      typeof db._batch === 'function' &&
      db.status === 'open' &&
      db.hooks.prewrite.noop &&
      db.listenerCount('write') === 0
    ) {
      return db._batch(this.ops, { sync })
    }
    return this.root.batch(
      this.ops.map((op) => ({
        type: 'put' as const,
        key: op.key,
        value: op.value,
        keyEncoding: 'utf8',
        valueEncoding: typeof op.value === 'string' ? 'utf8' : 'view',
      })),
      { sync },
    )
  }
}
