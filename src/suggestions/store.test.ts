// What suggestions add to the per-document record store (src/storage/doc-records/store.test.ts
// holds the shared contract), on every engine: memory, LevelDB, PostgreSQL. A decision is a
// compare-and-set on rev (one of two racing wins), and the layouts data dirs and databases already
// hold must read back unchanged.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startPostgres, type PgServer } from '../../test/helpers/postgres.js'
import type { RootDb } from '../infra/data-dir.js'
import { applySchemaMigrations } from '../pg/schema.js'
import { createPgPool } from '../pg/pool.js'
import { LevelSuggestionStore } from './leveldb.js'
import { MemorySuggestionStore } from './memory.js'
import { PgSuggestionStore } from './postgres.js'
import type { SuggestionRecord } from './record.js'
import type { SuggestionStore } from './store.js'

let pgServer: Promise<PgServer> | undefined
let schemas = 0
afterAll(async () => (await pgServer)?.close())

const impls: [string, () => Promise<{ store: SuggestionStore; done: () => Promise<void> }>][] = [
  ['memory', async () => ({ store: new MemorySuggestionStore(), done: async () => {} })],
  [
    'leveldb',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'tandem-suggestions-'))
      const db = new Level<string, unknown>(dir) as RootDb
      await db.open()
      return {
        store: new LevelSuggestionStore(db),
        done: async () => (await db.close(), await rm(dir, { recursive: true, force: true })),
      }
    },
  ],
  [
    'postgres',
    async () => {
      const pgs = await (pgServer ??= startPostgres())
      const schema = `suggestions_${++schemas}`
      const pool = createPgPool({ url: pgs.url, schema, poolSize: 3 })
      await applySchemaMigrations(pool, schema)
      return { store: new PgSuggestionStore(pool), done: () => pool.end() }
    },
  ],
]

const record = (id: string, at: number): SuggestionRecord => ({
  id,
  base: '1',
  applied: '1',
  root: 'default',
  by: 'bot',
  created_at_ms: at,
  status: 'open',
  accepted_hunks: [],
  rejected_hunks: [],
  rev: 0,
})

describe.each(impls)('SuggestionStore contract: %s', (_name, make) => {
  let ctx: Awaited<ReturnType<typeof make>>
  beforeEach(async () => {
    ctx = await make()
  })
  afterEach(async () => ctx.done())

  it('stores records and updates per document, decides by compare-and-set on rev, drops fields a decision drops', async () => {
    const s = ctx.store
    await s.create('o/d/main', record('a', 10), Uint8Array.of(1, 2))
    await s.create('o/d/main', record('b', 20), Uint8Array.of(3))
    await s.create('o/d/mainx', record('c', 30), Uint8Array.of(4))
    expect((await s.list('o/d/main')).map((r) => r.id)).toEqual(['b', 'a'])
    expect(await s.update('o/d/main', 'a')).toEqual(Uint8Array.of(1, 2))
    expect(await s.get('o/d/main', 'c')).toBeNull()

    const decided = { ...record('a', 10), status: 'accepted' as const, decided_by: 'rita', rev: 1 }
    const racing = { ...record('a', 10), status: 'rejected' as const, decided_by: 'rob', rev: 1 }
    const wins = await Promise.all([s.replace('o/d/main', decided), s.replace('o/d/main', racing)])
    expect(wins.filter(Boolean)).toHaveLength(1)
    const now = await s.get('o/d/main', 'a')
    expect(now).toEqual(wins[0] ? decided : racing)
    expect(await s.replace('o/d/main', { ...record('zz', 1), rev: 1 })).toBe(false)

    // a claim taken and dropped (the accept's path) moves rev twice; a stale decision then loses
    const claimed: SuggestionRecord & { claim?: { head: number } } = { ...now!, rev: 2, claim: { head: 3 } }
    expect(await s.replace('o/d/main', claimed)).toBe(true)
    const { claim: _claim, ...dropped } = { ...claimed, rev: 3 }
    expect(await s.replace('o/d/main', dropped)).toBe(true)
    expect(await s.get('o/d/main', 'a')).toEqual(dropped) // the claim is gone, not merged back
    expect(await s.replace('o/d/main', { ...decided, rev: 2 })).toBe(false)
  })
})

describe('the layouts already written', () => {
  it('LevelDB: reads the keys of sublevel suggestions-v1 and writes them as before', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tandem-suggestions-'))
    const db = new Level<string, unknown>(dir) as RootDb
    await db.open()
    try {
      const raw = db.sublevel<string, Uint8Array>('suggestions-v1', { keyEncoding: 'utf8', valueEncoding: 'view' })
      await raw.put('o/d/main!r!a', new TextEncoder().encode(JSON.stringify(record('a', 10))))
      await raw.put('o/d/main!u!a', Uint8Array.of(9, 8))
      const s = new LevelSuggestionStore(db)
      expect(await s.list('o/d/main')).toEqual([record('a', 10)])
      expect(await s.update('o/d/main', 'a')).toEqual(Uint8Array.of(9, 8))
      await s.create('o/d/main', record('b', 20), Uint8Array.of(7))
      expect(await s.replace('o/d/main', { ...record('a', 10), status: 'rejected', rev: 1 })).toBe(true)
      const keys: string[] = []
      for await (const k of raw.keys()) keys.push(k)
      expect(keys.sort()).toEqual(['o/d/main!r!a', 'o/d/main!r!b', 'o/d/main!u!a', 'o/d/main!u!b'])
      expect(JSON.parse(new TextDecoder().decode(await raw.get('o/d/main!r!a')))).toEqual({
        ...record('a', 10),
        status: 'rejected',
        rev: 1,
      })
    } finally {
      await db.close()
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('PostgreSQL: reads rows of doc_suggestions as migrations made them and writes them as before', async () => {
    const pgs = await (pgServer ??= startPostgres())
    const schema = `suggestions_${++schemas}`
    const pool = createPgPool({ url: pgs.url, schema, poolSize: 3 })
    await applySchemaMigrations(pool, schema)
    try {
      await pool.query(
        'INSERT INTO doc_suggestions (doc_id, id, created_at_ms, record, change) VALUES ($1, $2, $3, $4, $5)',
        ['o/d/main', 'a', 10, JSON.stringify(record('a', 10)), Buffer.from([9, 8])],
      )
      const s = new PgSuggestionStore(pool)
      expect(await s.list('o/d/main')).toEqual([record('a', 10)])
      expect(await s.update('o/d/main', 'a')).toEqual(Uint8Array.of(9, 8))
      await s.create('o/d/main', record('b', 20), Uint8Array.of(7))
      expect(await s.replace('o/d/main', { ...record('a', 10), status: 'rejected', rev: 1 })).toBe(true)
      const { rows } = await pool.query(
        'SELECT doc_id, id, created_at_ms::int, record, change FROM doc_suggestions ORDER BY id',
      )
      expect(rows).toEqual([
        {
          doc_id: 'o/d/main',
          id: 'a',
          created_at_ms: 10,
          record: { ...record('a', 10), status: 'rejected', rev: 1 },
          change: Buffer.from([9, 8]),
        },
        { doc_id: 'o/d/main', id: 'b', created_at_ms: 20, record: record('b', 20), change: Buffer.from([7]) },
      ])
    } finally {
      await pool.end()
    }
  })
})
