// One contract, every suggestion store: memory, LevelDB, PostgreSQL. A decision is a compare-and-set
// on rev (one of two racing wins); erase takes every suggestion of a document and nothing else.
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
      return { store: new LevelSuggestionStore(db), done: async () => (await db.close(), await rm(dir, { recursive: true, force: true })) }
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

  it('stores records and updates per document, lists newest first, decides by compare-and-set, erases one document', async () => {
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

    await s.erase('o/d/main')
    expect(await s.list('o/d/main')).toEqual([])
    expect(await s.update('o/d/main', 'a')).toBeNull()
    expect((await s.list('o/d/mainx')).map((r) => r.id)).toEqual(['c'])
  })
})
