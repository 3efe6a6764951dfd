// One contract, every implementation.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startPostgres, type PgServer } from '../../test/helpers/postgres.js'
import type { RootDb } from '../infra/data-dir.js'
import { applySchemaMigrations } from '../pg/schema.js'
import { createPgPool } from '../pg/pool.js'
import type { DocStore } from './doc-store.js'
import { LevelDocStore } from './leveldb/store.js'
import { MemoryDocStore } from './memory.js'
import { PgDocStore } from './postgres/store.js'

const bytes = (...b: number[]) => Uint8Array.from(b)
const collect = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

const impls: [
  string,
  () => Promise<{ store: DocStore; reopen?: () => Promise<DocStore>; done: () => Promise<void> }>,
][] = [
  ['memory', async () => ({ store: new MemoryDocStore(), done: async () => {} })],
  [
    'leveldb',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'tandem-store-'))
      let db = new Level<string, unknown>(dir) as RootDb
      await db.open()
      return {
        store: new LevelDocStore(db),
        reopen: async () => {
          await db.close()
          db = new Level<string, unknown>(dir) as RootDb
          await db.open()
          return new LevelDocStore(db)
        },
        done: async () => {
          await db.close()
          await rm(dir, { recursive: true, force: true })
        },
      }
    },
  ],
]

// One PostgreSQL for this file, started on first use; every test gets a fresh schema.
let pgServer: Promise<PgServer> | undefined
let schemas = 0
afterAll(async () => (await pgServer)?.close())
impls.push([
  'postgres',
  async () => {
    const pgs = await (pgServer ??= startPostgres())
    const schema = `contract_${++schemas}`
    const open = async () => {
      const pool = createPgPool({ url: pgs.url, schema, poolSize: 3 })
      await applySchemaMigrations(pool, schema)
      return pool
    }
    let pool = await open()
    return {
      store: new PgDocStore(pool),
      reopen: async () => {
        await pool.end()
        pool = await open()
        return new PgDocStore(pool)
      },
      done: () => pool.end(),
    }
  },
])

describe.each(impls)('DocStore contract: %s', (_name, make) => {
  let ctx: Awaited<ReturnType<typeof make>>
  beforeEach(async () => {
    ctx = await make()
  })
  afterEach(async () => ctx.done())

  it('a new document loads empty and does not exist', async () => {
    expect(await ctx.store.load('o/d/main')).toEqual({ snapshot: null, updates: [], lastSeq: 0 })
    expect(await ctx.store.exists('o/d/main')).toBe(false)
  })

  it('appended updates load back in order with their attribution', async () => {
    await ctx.store.append('o/d/main', 1, [
      { user: 'ann@x', at: 10, update: bytes(1, 2) },
      { user: 'bob@x', at: 11, update: bytes(3) },
    ])
    await ctx.store.append('o/d/main', 3, [{ user: 'ann@x', at: 12, update: bytes(4) }])
    const state = await ctx.store.load('o/d/main')
    expect(state.lastSeq).toBe(3)
    expect(state.updates.map((u) => [u.seq, u.user, u.at, Array.from(u.update)])).toEqual([
      [1, 'ann@x', 10, [1, 2]],
      [2, 'bob@x', 11, [3]],
      [3, 'ann@x', 12, [4]],
    ])
    expect(await ctx.store.exists('o/d/main')).toBe(true)
  })

  it('attributions are stored beside their user; entries without them read back without (store-numbered too)', async () => {
    const attrs = { source: 'ai', model: 'm1' }
    await ctx.store.append('o/t/main', 1, [
      { user: 'ann@x', at: 10, update: bytes(1) },
      { user: 'agent@x', at: 11, update: bytes(2), attrs },
      { user: '', at: 12, update: bytes(3) },
    ])
    await ctx.store.appendMany([{ docId: 'o/u/main', entries: [{ user: 'agent@x', at: 13, update: bytes(4), attrs }] }])
    const shape = (u: { seq: number; user: string; attrs?: object }) => [u.seq, u.user, u.attrs]
    const expected = [
      [1, 'ann@x', undefined],
      [2, 'agent@x', attrs],
      [3, '', undefined],
    ]
    expect((await ctx.store.load('o/t/main')).updates.map(shape)).toEqual(expected)
    expect((await collect(ctx.store.readLog('o/t/main'))).map(shape)).toEqual(expected)
    expect((await collect(ctx.store.readLog('o/u/main'))).map(shape)).toEqual([[1, 'agent@x', attrs]])
    expect((await collect(ctx.store.readLog('o/t/main')))[0]).not.toHaveProperty('attrs')
  })

  it('one write cycle appends to several documents at once, each in seq order', async () => {
    await ctx.store.appendMany([])
    await ctx.store.appendMany([
      { docId: 'o/a/main', firstSeq: 1, entries: [{ user: 'ann@x', at: 1, update: bytes(1) }] },
      { docId: 'o/b/main', firstSeq: 1, entries: [1, 2].map((n) => ({ user: 'bob@x', at: n, update: bytes(n) })) },
      { docId: 'o/a/main', firstSeq: 2, entries: [{ user: 'ann@x', at: 2, update: bytes(2) }] },
    ])
    const a = await ctx.store.load('o/a/main')
    const b = await ctx.store.load('o/b/main')
    expect(a.updates.map((u) => [u.seq, u.user, Array.from(u.update)])).toEqual([
      [1, 'ann@x', [1]],
      [2, 'ann@x', [2]],
    ])
    expect(b.lastSeq).toBe(2)
    expect(b.updates.map((u) => u.at)).toEqual([1, 2])
  })

  it('writes without firstSeq get the next seqs after the head (also after a pruned log), answered per write', async () => {
    const e = (n: number) => ({ user: 'ann@x', at: n, update: bytes(n) })
    await ctx.store.append('o/p/main', 1, [e(1), e(2)])
    await ctx.store.writeSnapshot('o/p/main', { seq: 2, at: 5, state: bytes(9) })
    await ctx.store.prune('o/p/main', 2)
    const seqs = await ctx.store.appendMany([
      { docId: 'o/p/main', entries: [e(3)] },
      { docId: 'o/q/main', entries: [e(1), e(2)] },
      { docId: 'o/p/main', entries: [e(4), e(5)] },
    ])
    expect(seqs).toEqual([
      { docId: 'o/p/main', firstSeq: 3, lastSeq: 3 },
      { docId: 'o/q/main', firstSeq: 1, lastSeq: 2 },
      { docId: 'o/p/main', firstSeq: 4, lastSeq: 5 },
    ])
    expect((await ctx.store.load('o/p/main')).updates.map((u) => [u.seq, u.at])).toEqual([
      [3, 3],
      [4, 4],
      [5, 5],
    ])
    expect((await ctx.store.load('o/q/main')).lastSeq).toBe(2)
    // named seqs answer themselves; mixing both in one cycle is refused, writing nothing
    expect(await ctx.store.appendMany([{ docId: 'o/q/main', firstSeq: 3, entries: [e(3)] }])).toEqual([
      { docId: 'o/q/main', firstSeq: 3, lastSeq: 3 },
    ])
    await expect(
      ctx.store.appendMany([
        { docId: 'o/q/main', firstSeq: 4, entries: [e(4)] },
        { docId: 'o/r/main', entries: [e(1)] },
      ]),
    ).rejects.toThrow(/firstSeq/)
    expect(await ctx.store.exists('o/r/main')).toBe(false)
  })

  it('a snapshot replaces the log on load, keeps it for history, and prune drops only covered entries', async () => {
    await ctx.store.append(
      'o/d/main',
      1,
      [1, 2, 3, 4].map((n) => ({ user: 'u', at: n, update: bytes(n) })),
    )
    await ctx.store.writeSnapshot('o/d/main', { seq: 3, at: 99, state: bytes(9, 9) })
    const state = await ctx.store.load('o/d/main')
    expect(state.snapshot).toEqual({ seq: 3, at: 99, state: bytes(9, 9) })
    expect(state.updates.map((u) => u.seq)).toEqual([4])
    expect((await collect(ctx.store.readLog('o/d/main'))).map((u) => u.seq)).toEqual([1, 2, 3, 4])
    expect((await collect(ctx.store.readLog('o/d/main', 2, 3))).map((u) => u.seq)).toEqual([2, 3])
    await expect(ctx.store.prune('o/d/main', 4)).rejects.toThrow()
    await ctx.store.prune('o/d/main', 3)
    expect((await collect(ctx.store.readLog('o/d/main'))).map((u) => u.seq)).toEqual([4])
    expect((await ctx.store.load('o/d/main')).lastSeq).toBe(4)
  })

  it('lastSeq survives a prune of the whole log', async () => {
    await ctx.store.append('o/d/main', 1, [{ user: 'u', at: 1, update: bytes(1) }])
    await ctx.store.writeSnapshot('o/d/main', { seq: 1, at: 2, state: bytes(1) })
    await ctx.store.prune('o/d/main', 1)
    expect(await ctx.store.load('o/d/main')).toMatchObject({ lastSeq: 1, updates: [] })
  })

  it('documents with a shared name prefix stay apart and list sorted', async () => {
    await ctx.store.append('o/d/main', 1, [{ user: 'u', at: 1, update: bytes(1) }])
    await ctx.store.append('o/d/main2', 1, [{ user: 'u', at: 1, update: bytes(2) }])
    await ctx.store.writeSnapshot('o/c/main', { seq: 0, at: 1, state: bytes(0) })
    await ctx.store.append('p/d/main', 1, [{ user: 'u', at: 1, update: bytes(3) }])
    expect((await ctx.store.load('o/d/main')).updates).toHaveLength(1)
    expect(await collect(ctx.store.listDocs('o/'))).toEqual(['o/c/main', 'o/d/main', 'o/d/main2'])
    expect(await collect(ctx.store.listDocs())).toHaveLength(4)
  })

  it('a prefix is literal: LIKE wildcards and regex characters match only themselves', async () => {
    for (const id of ['a_/x/main', 'ab/x/main', 'a%/x/main', 'a./x/main', 'aZ/x/main']) {
      await ctx.store.append(id, 1, [{ user: 'u', at: 1, update: bytes(1) }])
    }
    expect(await collect(ctx.store.listDocs('a_'))).toEqual(['a_/x/main'])
    expect(await collect(ctx.store.listDocs('a%'))).toEqual(['a%/x/main'])
    expect(await collect(ctx.store.listDocs('a.'))).toEqual(['a./x/main'])
    expect(await collect(ctx.store.listDocs('b'))).toEqual([])
  })

  it('a long log reads back whole and in order, also from the middle', async () => {
    const n = 1234
    for (let first = 1; first <= n; first += 300) {
      const count = Math.min(300, n - first + 1)
      await ctx.store.append(
        'o/long/main',
        first,
        Array.from({ length: count }, (_, i) => ({
          user: `u${(first + i) % 3}`,
          at: first + i,
          update: bytes((first + i) % 256),
        })),
      )
    }
    const all = await collect(ctx.store.readLog('o/long/main'))
    expect(all.map((u) => u.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1))
    expect(all[999]).toMatchObject({ seq: 1000, user: 'u1', at: 1000, update: bytes(1000 % 256) })
    const mid = await collect(ctx.store.readLog('o/long/main', 499, 1001))
    expect(mid.map((u) => u.seq)).toEqual(Array.from({ length: 503 }, (_, i) => i + 499))
    expect((await ctx.store.load('o/long/main')).updates).toHaveLength(n)
  })

  it('side records are per document and name, replaced on write, and outlive a prune', async () => {
    expect(await ctx.store.readMeta('o/d/main', 'history')).toBeNull()
    await ctx.store.append('o/d/main', 1, [{ user: 'u', at: 1, update: bytes(1) }])
    await ctx.store.writeMeta('o/d/main', 'history', bytes(1, 2))
    await ctx.store.writeMeta('o/d/main', 'history', bytes(3))
    await ctx.store.writeMeta('o/d/main2', 'history', bytes(4))
    await ctx.store.writeSnapshot('o/d/main', { seq: 1, at: 2, state: bytes(1) })
    await ctx.store.prune('o/d/main', 1)
    expect(await ctx.store.readMeta('o/d/main', 'history')).toEqual(bytes(3))
    expect(await ctx.store.readMeta('o/d/main2', 'history')).toEqual(bytes(4))
    expect(await collect(ctx.store.listDocs())).toEqual(['o/d/main'])
  })

  it('a claimed side record is written once: concurrent claims all answer the winner, a later claim the one that stands', async () => {
    const claims = await Promise.all([1, 2, 3, 4].map((n) => ctx.store.claimMeta('o/d/main', 'base-key', bytes(n))))
    expect(new Set(claims.map((c) => c.join()))).toHaveProperty('size', 1)
    expect(await ctx.store.readMeta('o/d/main', 'base-key')).toEqual(claims[0])
    expect(await ctx.store.claimMeta('o/d/main', 'base-key', bytes(9))).toEqual(claims[0])
    expect(await ctx.store.claimMeta('o/d2/main', 'base-key', bytes(9))).toEqual(bytes(9))
    expect(await ctx.store.exists('o/d/main')).toBe(false) // a side record alone is no document
    await ctx.store.eraseDocument('o/d/main')
    expect(await ctx.store.claimMeta('o/d/main', 'base-key', bytes(7))).toEqual(bytes(7))
  })

  it('erasing a document removes its log, snapshot and side records, and nothing of its neighbours', async () => {
    const e = (n: number) => ({ user: 'u', at: n, update: bytes(n) })
    for (const id of ['o/d/main', 'o/d/draft', 'o/d2/main']) {
      await ctx.store.append(id, 1, [e(1), e(2), e(3)])
      await ctx.store.writeSnapshot(id, { seq: 2, at: 2, state: bytes(2) })
      await ctx.store.writeMeta(id, 'history', bytes(5))
    }
    await ctx.store.eraseDocument('o/d/main')
    expect(await ctx.store.load('o/d/main')).toEqual({ snapshot: null, updates: [], lastSeq: 0 })
    expect(await ctx.store.exists('o/d/main')).toBe(false)
    expect(await collect(ctx.store.readLog('o/d/main'))).toEqual([])
    expect(await ctx.store.readMeta('o/d/main', 'history')).toBeNull()
    expect(await collect(ctx.store.listDocs())).toEqual(['o/d/draft', 'o/d2/main'])
    for (const id of ['o/d/draft', 'o/d2/main']) {
      expect((await ctx.store.load(id)).lastSeq).toBe(3)
      expect(await ctx.store.readMeta(id, 'history')).toEqual(bytes(5))
    }
    // idempotent, and the id starts afresh from seq 1 (no head left behind)
    await ctx.store.eraseDocument('o/d/main')
    await ctx.store.eraseDocument('o/never/main')
    expect(await ctx.store.appendMany([{ docId: 'o/d/main', entries: [e(9)] }])).toEqual([
      { docId: 'o/d/main', firstSeq: 1, lastSeq: 1 },
    ])
    if (ctx.reopen) {
      const again = await ctx.reopen()
      expect((await again.load('o/d/main')).updates.map((u) => u.at)).toEqual([9])
    }
  })

  it('marks land with the appends they ride on (both numbering modes), list by prefix, and delete by key', async () => {
    await ctx.store.appendMany([
      {
        docId: 'o/d/main',
        firstSeq: 1,
        entries: [{ user: 'u', at: 1, update: bytes(1) }],
        marks: [{ key: 'wh!o/d/main!1', value: '' }],
      },
    ])
    await ctx.store.appendMany([
      {
        docId: 'o/e/main',
        entries: [{ user: 'u', at: 2, update: bytes(2) }],
        marks: [{ key: 'wh!o/e/main!2', value: 'x' }],
      },
      { docId: 'o/f/main', entries: [{ user: 'u', at: 2, update: bytes(3) }] },
    ])
    // a mark written again (a retried cycle) is no error
    await ctx.store.appendMany([
      {
        docId: 'o/d/main',
        entries: [{ user: 'u', at: 3, update: bytes(4) }],
        marks: [{ key: 'wh!o/d/main!1', value: '' }],
      },
    ])
    expect((await ctx.store.load('o/d/main')).lastSeq).toBe(2)
    expect(await collect(ctx.store.readMarks!('wh!'))).toEqual([
      { key: 'wh!o/d/main!1', value: '' },
      { key: 'wh!o/e/main!2', value: 'x' },
    ])
    expect(await collect(ctx.store.readMarks!('other!'))).toEqual([])
    await ctx.store.deleteMarks!(['wh!o/d/main!1', 'wh!absent'])
    expect(await collect(ctx.store.readMarks!('wh!'))).toEqual([{ key: 'wh!o/e/main!2', value: 'x' }])
  })

  it('state survives reopening the store', async () => {
    if (!ctx.reopen) return
    await ctx.store.append('o/d/main', 1, [{ user: 'u', at: 5, update: bytes(7) }])
    await ctx.store.writeMeta('o/d/main', 'history', bytes(9))
    const again = await ctx.reopen()
    expect((await again.load('o/d/main')).updates[0]).toMatchObject({ seq: 1, user: 'u', at: 5 })
    expect(await again.readMeta('o/d/main', 'history')).toEqual(bytes(9))
  })
})
