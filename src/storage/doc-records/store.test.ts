// One contract, every engine of the per-document record store: memory, LevelDB, PostgreSQL, on a
// layout of the test's own. What each feature adds (its layout, its checks) is tested in its
// folder (src/versions/store.test.ts, src/suggestions/store.test.ts).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startPostgres, type PgServer } from '../../../test/helpers/postgres.js'
import type { RootDb } from '../../infra/data-dir.js'
import { createPgPool } from '../../pg/pool.js'
import { LevelDocRecords } from './leveldb.js'
import { MemoryDocRecords } from './memory.js'
import { PgDocRecords, type PgTable } from './postgres.js'
import type { DocRecords } from './store.js'

interface Note {
  id: string
  created_at_ms: number
  text: string
  tags: string[]
  rev: number
}

const revision = (n: Note) => n.rev

const TABLE: PgTable<Note> = {
  table: 'test_notes',
  body: 'content',
  columns: 'record',
  read: (r) => r.record as Note,
  write: (n) => ({ created_at_ms: n.created_at_ms, record: JSON.stringify(n) }),
  revision: "(record->>'rev')::int",
  what: 'note storage',
}

let pgServer: Promise<PgServer> | undefined
let schemas = 0
afterAll(async () => (await pgServer)?.close())

const engines: [string, () => Promise<{ store: DocRecords<Note>; done: () => Promise<void> }>][] = [
  ['memory', async () => ({ store: new MemoryDocRecords(revision), done: async () => {} })],
  [
    'leveldb',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'tandem-doc-records-'))
      const db = new Level<string, unknown>(dir) as RootDb
      await db.open()
      const store = new LevelDocRecords(db, { sublevel: 'notes-v1', bodyTag: 'c', revision })
      return { store, done: async () => (await db.close(), await rm(dir, { recursive: true, force: true })) }
    },
  ],
  [
    'postgres',
    async () => {
      const pgs = await (pgServer ??= startPostgres())
      const schema = `doc_records_${++schemas}`
      const pool = createPgPool({ url: pgs.url, schema, poolSize: 3 })
      await pool.query(`CREATE SCHEMA ${schema}`)
      await pool.query(`CREATE TABLE test_notes (
        doc_id text COLLATE "C" NOT NULL, id text COLLATE "C" NOT NULL, created_at_ms bigint NOT NULL,
        record jsonb NOT NULL, content bytea NOT NULL, PRIMARY KEY (doc_id, id))`)
      return { store: new PgDocRecords(pool, TABLE), done: () => pool.end() }
    },
  ],
]

const note = (id: string, at: number, rev = 0): Note => ({
  id,
  created_at_ms: at,
  text: `note ${id}`,
  tags: ['x'],
  rev,
})

describe.each(engines)('DocRecords contract: %s', (_name, make) => {
  let ctx: Awaited<ReturnType<typeof make>>
  let s: DocRecords<Note>
  beforeEach(async () => {
    ctx = await make()
    s = ctx.store
  })
  afterEach(async () => ctx.done())

  it('keeps records and bodies per document and lists them newest first, ties by id', async () => {
    await s.create('o/d/main', note('a', 10), Uint8Array.of(1, 2))
    await s.create('o/d/main', note('c', 20), Uint8Array.of(3))
    await s.create('o/d/main', note('b', 20), Uint8Array.of(4))
    await s.create('o/d/mainx', note('z', 30), Uint8Array.of(5))
    expect((await s.list('o/d/main')).map((r) => r.id)).toEqual(['c', 'b', 'a'])
    expect(await s.get('o/d/main', 'a')).toEqual(note('a', 10))
    expect(await s.body('o/d/main', 'a')).toEqual(Uint8Array.of(1, 2))
    // a document whose id starts with another's holds nothing of it
    expect(await s.get('o/d/main', 'z')).toBeNull()
    expect(await s.body('o/d/main', 'z')).toBeNull()
    expect((await s.list('o/d/mainx')).map((r) => r.id)).toEqual(['z'])
    expect(await s.list('o/none/main')).toEqual([])
  })

  it('answers copies: changing what it returned changes nothing stored', async () => {
    const body = Uint8Array.of(7)
    await s.create('o/d/main', note('a', 10), body)
    body[0] = 0
    const got = (await s.get('o/d/main', 'a'))!
    got.tags.push('changed')
    ;(await s.body('o/d/main', 'a'))![0] = 9
    expect(await s.get('o/d/main', 'a')).toEqual(note('a', 10))
    expect(await s.body('o/d/main', 'a')).toEqual(Uint8Array.of(7))
  })

  it('replaces under the revision check: of two racing, one wins; the body stays', async () => {
    await s.create('o/d/main', note('a', 10), Uint8Array.of(1))
    const mine = { ...note('a', 10, 1), text: 'mine' }
    const theirs = { ...note('a', 10, 1), text: 'theirs' }
    const wins = await Promise.all([s.replace('o/d/main', mine, 0), s.replace('o/d/main', theirs, 0)])
    expect(wins.filter(Boolean)).toHaveLength(1)
    expect(await s.get('o/d/main', 'a')).toEqual(wins[0] ? mine : theirs)
    expect(await s.replace('o/d/main', { ...mine, rev: 2 }, 0)).toBe(false) // stale
    expect(await s.replace('o/d/main', { ...mine, text: 'again', rev: 2 }, 1)).toBe(true)
    expect((await s.get('o/d/main', 'a'))!.text).toBe('again')
    expect(await s.body('o/d/main', 'a')).toEqual(Uint8Array.of(1))
    expect(await s.replace('o/d/main', note('gone', 1, 1), 0)).toBe(false)
    expect(await s.replace('o/d/mainx', { ...mine, rev: 3 }, 2)).toBe(false) // another document's id
  })

  it('replaces the body with the record when given one, under the same check; a stale one writes neither', async () => {
    await s.create('o/d/main', note('a', 10), Uint8Array.of(1))
    expect(await s.replace('o/d/main', { ...note('a', 10, 1), text: 'grown' }, 0, Uint8Array.of(1, 2))).toBe(true)
    expect((await s.get('o/d/main', 'a'))!.text).toBe('grown')
    expect(await s.body('o/d/main', 'a')).toEqual(Uint8Array.of(1, 2))
    expect(await s.replace('o/d/main', { ...note('a', 10, 2), text: 'stale' }, 0, Uint8Array.of(9))).toBe(false)
    expect(await s.body('o/d/main', 'a')).toEqual(Uint8Array.of(1, 2))
    expect((await s.get('o/d/main', 'a'))!.text).toBe('grown')
  })

  it('removes one record with its body, once; a replace racing the remove never brings it back', async () => {
    await s.create('o/d/main', note('a', 10), Uint8Array.of(1))
    await s.create('o/d/main', note('b', 20), Uint8Array.of(2))
    // either may go first; whichever does, the record is gone once both are done
    const [removed] = await Promise.all([s.remove('o/d/main', 'a'), s.replace('o/d/main', note('a', 10, 1), 0)])
    expect(removed).toBe(true)
    expect(await s.remove('o/d/main', 'a')).toBe(false)
    expect(await s.get('o/d/main', 'a')).toBeNull()
    expect(await s.body('o/d/main', 'a')).toBeNull()
    expect((await s.list('o/d/main')).map((r) => r.id)).toEqual(['b'])
  })

  it('erase takes every record of one document and nothing of another', async () => {
    await s.create('o/d/main', note('a', 10), Uint8Array.of(1))
    await s.create('o/d/main', note('b', 20), Uint8Array.of(2))
    await s.create('o/d/mainx', note('c', 30), Uint8Array.of(3))
    await s.create('o/d2/main', note('d', 40), Uint8Array.of(4))
    await s.erase('o/d/main')
    expect(await s.list('o/d/main')).toEqual([])
    expect(await s.body('o/d/main', 'a')).toBeNull()
    expect((await s.list('o/d/mainx')).map((r) => r.id)).toEqual(['c'])
    expect((await s.list('o/d2/main')).map((r) => r.id)).toEqual(['d'])
    expect(await s.body('o/d2/main', 'd')).toEqual(Uint8Array.of(4))
  })
})
