// One contract, every version store: memory, LevelDB, PostgreSQL. Erase is what a hard delete of a
// document calls, so it must take every version of that document and nothing of any other.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import pg from 'pg'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startPostgres, type PgServer } from '../../test/helpers/postgres.js'
import type { RootDb } from '../infra/data-dir.js'
import { applySchemaMigrations } from '../pg/schema.js'
import { createPgPool } from '../pg/pool.js'
import { LevelVersionStore } from './leveldb.js'
import { MemoryVersionStore } from './memory.js'
import { PgVersionStore } from './postgres.js'
import type { VersionRecord } from './record.js'
import type { VersionStore } from './store.js'

let pgServer: Promise<PgServer> | undefined
let schemas = 0
afterAll(async () => (await pgServer)?.close())

const impls: [string, () => Promise<{ store: VersionStore; done: () => Promise<void> }>][] = [
  ['memory', async () => ({ store: new MemoryVersionStore(), done: async () => {} })],
  [
    'leveldb',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'tandem-versions-'))
      const db = new Level<string, unknown>(dir) as RootDb
      await db.open()
      return { store: new LevelVersionStore(db), done: async () => (await db.close(), await rm(dir, { recursive: true, force: true })) }
    },
  ],
  [
    'postgres',
    async () => {
      const pgs = await (pgServer ??= startPostgres())
      const schema = `versions_${++schemas}`
      const pool = createPgPool({ url: pgs.url, schema, poolSize: 3 })
      await applySchemaMigrations(pool, schema)
      return { store: new PgVersionStore(pool), done: () => pool.end() }
    },
  ],
]

const record = (id: string, at: number): VersionRecord => ({ id: id.padEnd(22, 'x'), name: `v ${id}`, seq: at, created_at_ms: at, updated_at_ms: at, by: 'ann' })

describe.each(impls)('VersionStore contract: %s', (_name, make) => {
  let ctx: Awaited<ReturnType<typeof make>>
  beforeEach(async () => {
    ctx = await make()
  })
  afterEach(async () => ctx.done())

  it('stores records and states per document, lists newest first, renames under the check, removes', async () => {
    const s = ctx.store
    await s.create('o/d/main', record('a', 10), Uint8Array.of(1, 2))
    await s.create('o/d/main', record('b', 20), Uint8Array.of(3))
    await s.create('o/d/mainx', record('c', 30), Uint8Array.of(4))
    expect((await s.list('o/d/main')).map((r) => r.name)).toEqual(['v b', 'v a'])
    expect(Array.from((await s.state('o/d/main', record('a', 0).id))!)).toEqual([1, 2])
    expect(await s.state('o/d/main', record('c', 0).id)).toBeNull() // another document's
    const renamed = await s.rename('o/d/main', record('a', 0).id, 'renamed', 10, 10)
    expect(renamed).toEqual({ ok: true, record: { ...record('a', 10), name: 'renamed', updated_at_ms: 11 } })
    expect(await s.rename('o/d/main', record('a', 0).id, 'stale', 10, 50)).toEqual({ ok: false, current: { ...record('a', 10), name: 'renamed', updated_at_ms: 11 } })
    expect(await s.rename('o/d/main', 'nope'.padEnd(22, 'x'), 'x', 1, 1)).toBeNull()
    expect(await s.remove('o/d/main', record('b', 0).id)).toBe(true)
    expect(await s.remove('o/d/main', record('b', 0).id)).toBe(false)
    expect(await s.get('o/d/main', record('b', 0).id)).toBeNull()
  })

  it('erase takes every version of one document and nothing of another', async () => {
    const s = ctx.store
    await s.create('o/d/main', record('a', 10), Uint8Array.of(1))
    await s.create('o/d/main', record('b', 20), Uint8Array.of(2))
    await s.create('o/d/mainx', record('c', 30), Uint8Array.of(3))
    await s.create('o/d2/main', record('d', 40), Uint8Array.of(4))
    await s.erase('o/d/main')
    expect(await s.list('o/d/main')).toEqual([])
    expect(await s.state('o/d/main', record('a', 0).id)).toBeNull()
    expect((await s.list('o/d/mainx')).map((r) => r.name)).toEqual(['v c'])
    expect((await s.list('o/d2/main')).map((r) => r.name)).toEqual(['v d'])
  })
})

describe('PgVersionStore', () => {
  it('a rename that loses to one committed on another connection while it waited answers the winner\'s record', async () => {
    const pgs = await (pgServer ??= startPostgres())
    const schema = `versions_${++schemas}`
    const pool = createPgPool({ url: pgs.url, schema, poolSize: 3 })
    await applySchemaMigrations(pool, schema)
    const other = new pg.Client({ connectionString: pgs.url })
    await other.connect()
    try {
      const s = new PgVersionStore(pool)
      await s.create('o/d/main', record('a', 10), Uint8Array.of(1))
      // Another node's rename holds the row until it commits: ours waits, then fails its check.
      await other.query('BEGIN')
      await other.query(`UPDATE "${schema}".doc_versions SET name = 'winner', updated_at_ms = 11 WHERE id = $1`, [record('a', 0).id])
      const ours = s.rename('o/d/main', record('a', 0).id, 'loser', 10, 11)
      await new Promise((r) => setTimeout(r, 200))
      await other.query('COMMIT')
      expect(await ours).toEqual({ ok: false, current: { ...record('a', 10), name: 'winner', updated_at_ms: 11 } })
    } finally {
      await other.end()
      await pool.end()
    }
  })
})
