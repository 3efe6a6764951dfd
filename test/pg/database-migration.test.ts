// `tandem migrate` moves the data dir's PGlite database assets too: each becomes a database of its
// own on the target PostgreSQL with its tables, rows, sequences, constraints, indexes and views, and
// verifies equal. A database holding what the copy cannot rebuild is named and left alone (exit 1)
// while the others move; a rerun finishes it and never overwrites a database already moved.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runMigrate } from '../../src/cli/migrate.js'
import { seedDemo } from '../../src/demo/world.js'
import { getAsset } from '../../src/control/assets.js'
import { createDatabaseAsset } from '../../src/database-assets/create.js'
import { DEMO_DATABASE_ID, seedDemoDatabase } from '../../src/demo/database.js'
import { assetDatabase } from '../../src/database-assets/resolve.js'
import { call, grant, makeWorld, type World } from '../api/helpers.js'
import { startPostgres, type PgServer } from '../helpers/postgres.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

const SCHEMA = 'tandem_dbmig'
const SCHEMAS = ['public', 'hidden']
let pgs: PgServer
let dataDir: string
let world: World
let demoKey: string
const ids = { rich: '', odd: '', unopened: '' }

const RICH = [
  `CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`,
  `CREATE TABLE authors (id integer PRIMARY KEY, name text NOT NULL UNIQUE, mood mood DEFAULT 'ok')`,
  `CREATE TABLE books (
     id serial PRIMARY KEY,
     code integer GENERATED ALWAYS AS IDENTITY (START WITH 100),
     author_id integer REFERENCES authors (id),
     title text NOT NULL CHECK (title <> ''),
     price numeric(8, 2),
     ratio double precision,
     tags text[],
     meta jsonb,
     blob bytea,
     at timestamptz DEFAULT '2024-01-01T00:00:00Z',
     during tsrange,
     title_len integer GENERATED ALWAYS AS (length(title)) STORED
   )`,
  `CREATE INDEX books_price ON books (price DESC NULLS LAST)`,
  `CREATE SCHEMA hidden`,
  `CREATE SEQUENCE hidden.tickets START 7 INCREMENT 3`,
  `CREATE TABLE hidden.secrets (id integer DEFAULT nextval('hidden.tickets'), secret text)`,
  `INSERT INTO authors VALUES (1, 'Ann', 'happy'), (2, 'Bob', NULL), (3, 'Cleo "q"', 'sad')`,
  `INSERT INTO books (author_id, title, price, ratio, tags, meta, blob, during)
     SELECT 1 + i % 3, 'Book ' || i, (i * 37 % 6000) / 100.0, i / 7.0, ARRAY['t' || i % 3, 'x,y'], jsonb_build_object('n', i, 'big', 9007199254740993),
            decode(md5(i::text), 'hex'), tsrange('2024-01-01'::timestamp + i * interval '1 day', '2024-01-02'::timestamp + i * interval '1 day')
       FROM generate_series(1, 1200) i`,
  `DELETE FROM books WHERE id % 10 = 0`,
  `INSERT INTO hidden.secrets (secret) VALUES ('a'), ('b')`,
  `CREATE VIEW cheap AS SELECT id, title FROM books WHERE price < 10`,
  `CREATE MATERIALIZED VIEW per_author AS SELECT author_id, count(*) AS n FROM books GROUP BY author_id`,
  `CREATE UNIQUE INDEX per_author_id ON per_author (author_id)`,
  `ANALYZE`,
]

beforeAll(async () => {
  pgs = await startPostgres()
  dataDir = await mkdtemp(join(tmpdir(), 'tandem-dbmig-'))
  const h = await startTandem({ dbSchemas: SCHEMAS }, {}, dataDir)
  try {
    demoKey = (await seedDemoDatabase(h.server.deps, await seedDemo(h.server.deps))).apiKey
    world = await makeWorld(h, 'dbmig')
    const { store } = h.server.deps.control
    const registry = h.server.deps.databases
    const make = async (title: string, sql: string[]) => {
      const a = await createDatabaseAsset(store, registry, { workspaceId: world.workspaceId, title }, Date.now())
      expect(a.database).toEqual({ provider: 'pglite' })
      await grant(h, a.id, world.users.member, 'edit')
      const db = await assetDatabase(store, registry, a)
      await db.ready()
      for (const text of sql) await db.run({ text, values: [] })
      return a.id
    }
    ids.rich = await make('Rich', RICH)
    ids.odd = await make('Odd', [
      `CREATE TABLE t (id integer)`,
      `CREATE FUNCTION twice(integer) RETURNS integer LANGUAGE sql AS 'SELECT $1 * 2'`,
    ])
    ids.unopened = (
      await createDatabaseAsset(store, registry, { workspaceId: world.workspaceId, title: 'Never opened' }, Date.now())
    ).id
    await grant(h, ids.unopened, world.users.member, 'edit')
  } finally {
    await h.close()
  }
}, 120_000)

afterAll(async () => {
  await pgs?.close()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

async function migrate(): Promise<{ code: number; out: string }> {
  const lines: string[] = []
  const code = await runMigrate(
    ['--from-data-dir', dataDir, '--postgres-url', pgs.url, '--postgres-schema', SCHEMA],
    {},
    { out: (l) => lines.push(l), err: (l) => lines.push(l) },
  )
  return { code, out: lines.join('\n') }
}

/** The rows of a table as the API returns them, from a server over the given settings. */
const rows = (h: Harness, id: string, table: string, query = '', key = world.keys.member) =>
  call(h, 'GET', `/api/v0/databases/${id}/data/${table}?limit=1000${query}`, { key })

const READS: [() => string, string, string][] = [
  [() => ids.rich, 'books', 'id'],
  [() => ids.rich, 'authors', 'id'],
  [() => ids.rich, 'hidden.secrets', 'id'],
  [() => ids.rich, 'per_author', 'author_id.nullsfirst'],
  [() => ids.rich, 'cheap', 'id'],
  [() => DEMO_DATABASE_ID, 'customers', 'id'],
  [() => DEMO_DATABASE_ID, 'orders', 'id'],
]

describe('tandem migrate with PGlite database assets', () => {
  const before: Record<string, unknown> = {}

  it('moves every PGlite database with its tables, rows and sequences; one it cannot rebuild is named and left alone', async () => {
    // what the LevelDB server answered, for comparison
    const h = await startTandem({ dbSchemas: SCHEMAS }, {}, dataDir)
    try {
      for (const [id, table, order] of READS) {
        const r = await rows(h, id(), table, `&order=${order}`, id() === DEMO_DATABASE_ID ? demoKey : world.keys.member)
        expect(r.status, table).toBe(200)
        before[`${id()}/${table}`] = r.body
      }
      before.tables = (await call(h, 'GET', `/api/v0/databases/${ids.rich}/data`, { key: world.keys.member })).body
    } finally {
      await h.close()
    }
    const first = await migrate()
    expect(first.code, first.out).toBe(1)
    expect(first.out).toMatch(new RegExp(`database asset ${ids.odd}: not moved, .*function public\\.twice`))
    expect(first.out).toMatch(/database assets: 3 moved/)
    expect(first.out).not.toMatch(/postgres:\/\/|password/)
  }, 120_000)

  it('a server on PostgreSQL serves the moved databases as the data dir did, and their sequences go on where they were', async () => {
    const h = await startTandem({ postgresUrl: pgs.url, postgresSchema: SCHEMA, dbSchemas: SCHEMAS })
    try {
      for (const [id, table, order] of READS) {
        const r = await rows(h, id(), table, `&order=${order}`, id() === DEMO_DATABASE_ID ? demoKey : world.keys.member)
        expect(r.body, table).toEqual(before[`${id()}/${table}`])
      }
      expect((await call(h, 'GET', `/api/v0/databases/${ids.rich}/data`, { key: world.keys.member })).body).toEqual(
        before.tables,
      )
      const added = await call(h, 'POST', `/api/v0/databases/${ids.rich}/data/books`, {
        key: world.keys.member,
        body: { data: { title: 'New', author_id: 2 }, return_representation: true },
      })
      expect(added.body.data).toEqual([expect.objectContaining({ id: 1201, code: 1300, title_len: 3 })])
      const secret = await call(h, 'POST', `/api/v0/databases/${ids.rich}/data/hidden.secrets`, {
        key: world.keys.member,
        body: { data: { secret: 'c' }, return_representation: true },
      })
      expect(secret.body.data).toEqual([{ id: 13, secret: 'c' }])
      // constraints came along
      expect(
        (
          await call(h, 'POST', `/api/v0/databases/${ids.rich}/data/books`, {
            key: world.keys.member,
            body: { data: { title: 'x', author_id: 99 } },
          })
        ).status,
      ).toBe(409)
      expect(
        (
          await call(h, 'POST', `/api/v0/databases/${ids.rich}/data/authors`, {
            key: world.keys.member,
            body: { data: { id: 4, name: 'Ann' } },
          })
        ).status,
      ).toBe(409)
      expect((await call(h, 'GET', `/api/v0/databases/${ids.unopened}/data`, { key: world.keys.member })).body).toEqual(
        { tables: [] },
      )
    } finally {
      await h.close()
    }
  }, 120_000)

  it('a rerun moves what is left and leaves a database written since untouched, saying so', async () => {
    const h = await startTandem({ dbSchemas: SCHEMAS }, {}, dataDir)
    try {
      const { store } = h.server.deps.control
      const odd = await getAsset(store, ids.odd)
      await (await assetDatabase(store, h.server.deps.databases, odd!)).script('DROP FUNCTION twice(integer)')
    } finally {
      await h.close()
    }
    const again = await migrate()
    expect(again.code, again.out).toBe(1)
    expect(again.out).toMatch(/database assets: 1 moved .*2 already moved, 0 left as PGlite/)
    expect(again.out).toContain(
      `database asset ${ids.rich}: table public.books differs (moved by an earlier run and not overwritten`,
    )
    const pgServer = await startTandem({ postgresUrl: pgs.url, postgresSchema: SCHEMA, dbSchemas: SCHEMAS })
    try {
      expect((await rows(pgServer, ids.odd, 't')).body).toEqual({ data: [] })
      expect((await rows(pgServer, ids.rich, 'books', '&id=eq.1201&select=title')).body).toEqual({
        data: [{ title: 'New' }],
      })
    } finally {
      await pgServer.close()
    }
  }, 120_000)

  it('a data dir whose server already ran on PostgreSQL: only its PGlite assets move, switched in place, and a server with another data dir serves them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tandem-dbmig-pg-'))
    // a PGlite start on a loaded 2-core machine can take longer than the 5 s a request waits by default
    const settings = { postgresUrl: pgs.url, postgresSchema: 'tandem_inplace', dbStartWaitMs: 30_000 }
    try {
      const h = await startTandem(settings, {}, dir)
      let id: string
      let w: World
      try {
        w = await makeWorld(h, 'inplace')
        const { store } = h.server.deps.control
        const registry = h.server.deps.databases
        const a = await createDatabaseAsset(
          store,
          registry,
          { workspaceId: w.workspaceId, title: 'Old', provider: 'pglite' },
          Date.now(),
        )
        id = a.id
        await grant(h, id, w.users.member, 'edit')
        await (
          await assetDatabase(store, registry, a)
        ).script(`CREATE TABLE notes (id serial PRIMARY KEY, body text); INSERT INTO notes (body) VALUES ('kept')`)
      } finally {
        await h.close()
      }
      const lines: string[] = []
      const code = await runMigrate(
        ['--from-data-dir', dir, '--postgres-url', pgs.url, '--postgres-schema', 'tandem_inplace'],
        {},
        { out: (l) => lines.push(l), err: (l) => lines.push(l) },
      )
      expect(code, lines.join('\n')).toBe(0)
      expect(lines.join('\n')).toMatch(/database assets: 1 moved .*0 left as PGlite/)
      const other = await startTandem(settings)
      try {
        const r = await call(other, 'POST', `/api/v0/databases/${id}/data/notes`, {
          key: w.keys.member,
          body: { data: { body: 'new' }, return_representation: true },
        })
        expect(r.body).toEqual({ data: [{ id: 2, body: 'new' }] })
        expect((await rows(other, id, 'notes', '&order=id&select=body', w.keys.member)).body).toEqual({
          data: [{ body: 'kept' }, { body: 'new' }],
        })
      } finally {
        await other.close()
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
