// What versions add to the per-document record store (src/storage/doc-records/store.test.ts holds
// the shared contract), on every engine: memory, LevelDB, PostgreSQL. Renames and their check, and
// the layouts data dirs and databases already hold, which must read back unchanged.
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
      return {
        store: new LevelVersionStore(db),
        done: async () => (await db.close(), await rm(dir, { recursive: true, force: true })),
      }
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

const record = (id: string, at: number): VersionRecord => ({
  id: id.padEnd(22, 'x'),
  name: `v ${id}`,
  seq: at,
  created_at_ms: at,
  updated_at_ms: at,
  by: 'ann',
})

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
    expect(await s.rename('o/d/main', record('a', 0).id, 'stale', 10, 50)).toEqual({
      ok: false,
      current: { ...record('a', 10), name: 'renamed', updated_at_ms: 11 },
    })
    expect(await s.rename('o/d/main', 'nope'.padEnd(22, 'x'), 'x', 1, 1)).toBeNull()
    expect(await s.remove('o/d/main', record('b', 0).id)).toBe(true)
    expect(await s.remove('o/d/main', record('b', 0).id)).toBe(false)
    expect(await s.get('o/d/main', record('b', 0).id)).toBeNull()
  })

  it('of two renames racing on one version, one wins and the other answers the winner', async () => {
    const s = ctx.store
    const id = record('a', 0).id
    await s.create('o/d/main', record('a', 10), Uint8Array.of(1))
    const results = await Promise.all([
      s.rename('o/d/main', id, 'one', 10, 20),
      s.rename('o/d/main', id, 'two', 10, 20),
    ])
    const won = results.filter((r) => r?.ok)
    expect(won).toHaveLength(1)
    const winner = { ...record('a', 10), name: won[0]!.ok ? won[0]!.record.name : '', updated_at_ms: 20 }
    expect(results.find((r) => r && !r.ok)).toEqual({ ok: false, current: winner })
    expect(await s.get('o/d/main', id)).toEqual(winner)
    expect(await s.state('o/d/main', id)).toEqual(Uint8Array.of(1))
  })
})

describe('PgVersionStore', () => {
  it("a rename that loses to one committed on another connection while it waited answers the winner's record", async () => {
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
      await other.query(`UPDATE "${schema}".doc_versions SET name = 'winner', updated_at_ms = 11 WHERE id = $1`, [
        record('a', 0).id,
      ])
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

describe('the layouts already written', () => {
  it('LevelDB: reads the keys of sublevel versions-v1 and writes them as before', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tandem-versions-'))
    const db = new Level<string, unknown>(dir) as RootDb
    await db.open()
    try {
      const raw = db.sublevel<string, Uint8Array>('versions-v1', { keyEncoding: 'utf8', valueEncoding: 'view' })
      const a = record('a', 10)
      await raw.put(`o/d/main!r!${a.id}`, new TextEncoder().encode(JSON.stringify(a)))
      await raw.put(`o/d/main!s!${a.id}`, Uint8Array.of(9, 8))
      const s = new LevelVersionStore(db)
      expect(await s.list('o/d/main')).toEqual([a])
      expect(await s.state('o/d/main', a.id)).toEqual(Uint8Array.of(9, 8))
      const b = record('b', 20)
      await s.create('o/d/main', b, Uint8Array.of(7))
      const keys: string[] = []
      for await (const k of raw.keys()) keys.push(k)
      expect(keys.sort()).toEqual([
        `o/d/main!r!${a.id}`,
        `o/d/main!r!${b.id}`,
        `o/d/main!s!${a.id}`,
        `o/d/main!s!${b.id}`,
      ])
      expect(JSON.parse(new TextDecoder().decode(await raw.get(`o/d/main!r!${b.id}`)))).toEqual(b)
    } finally {
      await db.close()
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('PostgreSQL: reads rows of doc_versions as migrations made them and writes them as before', async () => {
    const pgs = await (pgServer ??= startPostgres())
    const schema = `versions_${++schemas}`
    const pool = createPgPool({ url: pgs.url, schema, poolSize: 3 })
    await applySchemaMigrations(pool, schema)
    try {
      const a = record('a', 10)
      await pool.query(
        'INSERT INTO doc_versions (doc_id, id, name, seq, created_at_ms, updated_at_ms, by_user, state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        ['o/d/main', a.id, a.name, a.seq, a.created_at_ms, a.updated_at_ms, a.by, Buffer.from([9, 8])],
      )
      const s = new PgVersionStore(pool)
      expect(await s.list('o/d/main')).toEqual([a])
      expect(await s.state('o/d/main', a.id)).toEqual(Uint8Array.of(9, 8))
      const b = record('b', 20)
      await s.create('o/d/main', b, Uint8Array.of(7))
      const { rows } = await pool.query(
        'SELECT doc_id, id, name, seq::int, created_at_ms::int, updated_at_ms::int, by_user, state FROM doc_versions WHERE id = $1',
        [b.id],
      )
      expect(rows).toEqual([
        {
          doc_id: 'o/d/main',
          id: b.id,
          name: b.name,
          seq: 20,
          created_at_ms: 20,
          updated_at_ms: 20,
          by_user: 'ann',
          state: Buffer.from([7]),
        },
      ])
    } finally {
      await pool.end()
    }
  })
})
