// What only the PostgreSQL store has to get right: one round trip per write cycle and one per
// load, a retried cycle after a lost answer, atomic refusal of a conflicting cycle, and an
// outage reported as `unavailable` (503) rather than an internal error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPostgres, type PgServer } from '../../../test/helpers/postgres.js'
import { AppError } from '../../infra/errors.js'
import { applySchemaMigrations } from '../../pg/schema.js'
import { createPgPool, type PgPool } from '../../pg/pool.js'
import { prefixUpperBound } from './log-sql.js'
import { PgDocStore } from './store.js'

const bytes = (...b: number[]) => Uint8Array.from(b)
const entry = (n: number, user = 'u') => ({ user, at: n, update: bytes(n % 256) })

let pgs: PgServer
let schemas = 0
beforeAll(async () => {
  pgs = await startPostgres()
})
afterAll(async () => pgs?.close())

/** A store over a fresh schema and a count of the statements its pool ran. */
async function fresh(
  queryTimeoutMs = 30_000,
  poolSize = 3,
): Promise<{ store: PgDocStore; pool: PgPool; statements: () => number; done: () => Promise<void> }> {
  const schema = `pgstore_${++schemas}`
  const pool = createPgPool({ url: pgs.url, schema, poolSize, connectTimeoutMs: 1000 })
  await applySchemaMigrations(pool, schema)
  // the store checks a connection out for each statement it runs
  let n = 0
  pool.on('acquire', () => n++)
  return { store: new PgDocStore(pool, { queryTimeoutMs }), pool, statements: () => n, done: () => pool.end() }
}

describe('PgDocStore', () => {
  it('a write cycle over many documents is one statement, and a load is one however long the log', async () => {
    const t = await fresh()
    try {
      const before = t.statements()
      await t.store.appendMany(
        Array.from({ length: 20 }, (_, d) => ({
          docId: `o/d${d}/main`,
          firstSeq: 1,
          entries: Array.from({ length: 30 }, (_, i) => entry(i + 1)),
        })),
      )
      expect(t.statements() - before).toBe(1)
      await t.store.writeSnapshot('o/d0/main', { seq: 10, at: 1, state: bytes(7) })
      const mark = t.statements()
      const state = await t.store.load('o/d0/main')
      expect(t.statements() - mark).toBe(1)
      expect(state.snapshot?.seq).toBe(10)
      expect(state.updates.map((u) => u.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 11))
      expect(state.lastSeq).toBe(30)
    } finally {
      await t.done()
    }
  })

  it("a write cycle's statement is prepared once per connection, not parsed and planned every cycle", async () => {
    const t = await fresh(30_000, 1) // one connection: the session the statements below look at
    try {
      for (let i = 1; i <= 3; i++) await t.store.appendMany([{ docId: 'o/p/main', firstSeq: i, entries: [entry(i)] }])
      for (let i = 1; i <= 3; i++) await t.store.appendMany([{ docId: 'o/q/main', entries: [entry(i)] }], `c${i}`) // store-assigned seqs (cluster)
      await t.store.appendMany(
        [{ docId: 'o/q/main', entries: [entry(4)], marks: [{ key: 'webhooks!o/q/main!1', value: '1' }] }],
        'c4',
      )
      const { rows } = await t.pool.query<{ name: string; calls: string }>(
        `SELECT name, generic_plans + custom_plans AS calls FROM pg_prepared_statements WHERE name LIKE 'tandem_%' ORDER BY name`,
      )
      // single-node appends, cluster appends, cluster appends carrying marks: three statements
      expect(rows.map((r) => Number(r.calls)).sort()).toEqual([1, 3, 3])
      expect((await t.store.load('o/q/main')).lastSeq).toBe(4)
    } finally {
      await t.done()
    }
  })

  it('a retried cycle whose first attempt committed writes only what is new', async () => {
    const t = await fresh()
    try {
      await t.store.append('o/r/main', 1, [entry(1), entry(2)])
      // the room retries the same batch, grown by what arrived meanwhile
      await t.store.append('o/r/main', 1, [entry(1), entry(2), entry(3)])
      const { updates } = await t.store.load('o/r/main')
      expect(updates.map((u) => [u.seq, u.at])).toEqual([
        [1, 1],
        [2, 2],
        [3, 3],
      ])
    } finally {
      await t.done()
    }
  })

  it('a cycle colliding with different content at a seq is refused whole: no document of it lands', async () => {
    const t = await fresh()
    try {
      await t.store.append('o/a/main', 1, [entry(1, 'ann')])
      const err = await t.store
        .appendMany([
          { docId: 'o/b/main', firstSeq: 1, entries: [entry(1)] },
          { docId: 'o/a/main', firstSeq: 1, entries: [entry(1, 'bob')] },
        ])
        .catch((e: unknown) => e)
      expect((err as Error).message).toMatch(/append conflict: o\/a\/main .* seq 1/)
      expect(await t.store.exists('o/b/main')).toBe(false)
      expect((await t.store.load('o/a/main')).updates[0]?.user).toBe('ann')
    } finally {
      await t.done()
    }
  })

  it('a stopped server is `unavailable` (503, Retry-After), and the store works again once it is back', async () => {
    const t = await fresh()
    try {
      await t.store.append('o/x/main', 1, [entry(1)])
      await pgs.stop()
      let err: unknown
      try {
        err = await t.store.append('o/x/main', 2, [entry(2)]).catch((e: unknown) => e)
        expect(err).toBeInstanceOf(AppError)
        expect((err as AppError).code).toBe('unavailable')
        expect((err as AppError).extra.retryAfterSec).toBeGreaterThan(0)
        expect(await t.store.load('o/x/main').catch((e: unknown) => (e as AppError).code)).toBe('unavailable')
      } finally {
        await pgs.start()
      }
      await t.store.append('o/x/main', 2, [entry(2)])
      expect((await t.store.load('o/x/main')).lastSeq).toBe(2)
    } finally {
      await t.done()
    }
  })

  it('a server that hangs instead of refusing is `unavailable` after the query timeout, and a write timed out there is not lost', async () => {
    const t = await fresh(1000)
    try {
      await t.store.append('o/h/main', 1, [entry(1)])
      await pgs.freeze()
      let err: unknown
      try {
        err = await t.store.append('o/h/main', 2, [entry(2)]).catch((e: unknown) => e)
      } finally {
        await pgs.thaw()
      }
      expect(err).toBeInstanceOf(AppError)
      expect((err as AppError).code).toBe('unavailable')
      // the room retries the same cycle, grown; whether or not the first attempt committed, it lands once
      await t.store.append('o/h/main', 2, [entry(2), entry(3)])
      expect((await t.store.load('o/h/main')).updates.map((u) => u.seq)).toEqual([1, 2, 3])
    } finally {
      await t.done()
    }
  })

  it('prefix bounds are the least string above the prefix', () => {
    expect(prefixUpperBound('')).toBeNull()
    expect(prefixUpperBound('o/')).toBe('o0')
    expect(prefixUpperBound('a\u{10ffff}')).toBe('b')
    expect(prefixUpperBound('a\ud7ff')).toBe('a\ue000')
  })
})
