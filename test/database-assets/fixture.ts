// A Tandem server on a throwaway PostgreSQL (--postgres-url) with database assets of every kind over
// the same schema and data: a PGlite asset (embedded, in the server's data dir), a postgres asset
// with a connection URL of its own (a database of the same server, as its superuser), and a managed
// one (created without a provider: a database and role of its own on Tandem's PostgreSQL). The
// member may edit them all, the admin may view them, the owner and the stranger have no grant.
import type { Asset } from '../../src/control/assets.js'
import { createDatabaseAsset } from '../../src/database-assets/create.js'
import { assetDatabase } from '../../src/database-assets/resolve.js'
import type { Database } from '../../src/database-assets/registry.js'
import type { Config } from '../../src/infra/config.js'
import type { ServerOptions } from '../../src/compose/server.js'
import { asset, call, grant, makeWorld, type Reply, type World } from '../api/helpers.js'
import { startPostgres, type PgServer } from '../helpers/postgres.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

export const PROVIDERS = ['pglite', 'postgres', 'managed'] as const
export type Provider = (typeof PROVIDERS)[number]

export interface DbWorld {
  h: Harness
  /** the server of the `postgres` asset (by default Tandem's own too) */
  pg: PgServer
  /** Tandem's own server (--postgres-url): control plane and managed assets */
  tandemPg: PgServer
  world: World
  assets: Record<Provider, Asset>
  /** The asset's database through the server's own registry, for setup SQL and hand-written queries. */
  db(p: Provider): Database
  /** Runs setup SQL (one statement). */
  exec(p: Provider, sql: string, values?: (string | null)[]): Promise<void>
  /** Runs a hand-written SELECT and returns its rows as a compact JSON array text (row_to_json). */
  rowsJson(p: Provider, select: string, values?: (string | null)[]): Promise<string>
  api(method: string, path: string, o?: { key?: string; body?: string | object }): Promise<Reply>
  /** Raw response text of a GET (for byte comparisons that JSON.parse would blur, e.g. bigints). */
  rawGet(path: string, key?: string): Promise<{ status: number; text: string; headers: Headers }>
  close(): Promise<void>
}

/** `separateServers`: the `postgres` asset on a server of its own, so stopping it leaves Tandem's running. */
export async function startDbWorld(
  tag: string,
  overrides: Partial<Config> = {},
  opts: { pg?: PgServer; server?: ServerOptions; separateServers?: boolean } = {},
): Promise<DbWorld> {
  const pg = opts.pg ?? (await startPostgres())
  const tandemPg = opts.separateServers ? await startPostgres() : pg
  const dbName = `t_${tag.replace(/\W/g, '_')}`.toLowerCase()
  const h = await startTandem(
    { postgresUrl: tandemPg.url, postgresSchema: `tandem_${dbName}`, ...overrides },
    opts.server,
  )
  const world = await makeWorld(h, tag)
  const connectionUrl = await pg.createDatabase(dbName)
  const registry = h.server.deps.databases
  const { store } = h.server.deps.control
  const assets = {
    pglite: await asset(h, {
      workspaceId: world.workspaceId,
      type: 'database',
      title: `pglite ${tag}`,
      database: { provider: 'pglite' },
    }),
    postgres: await asset(h, {
      workspaceId: world.workspaceId,
      type: 'database',
      title: `postgres ${tag}`,
      database: { provider: 'postgres', connectionUrl },
    }),
    managed: await createDatabaseAsset(
      store,
      registry,
      { workspaceId: world.workspaceId, title: `managed ${tag}` },
      Date.now(),
    ),
  }
  for (const a of Object.values(assets)) {
    await grant(h, a.id, world.users.member, 'edit')
    await grant(h, a.id, world.users.admin, 'view')
  }
  const databases = Object.fromEntries(
    await Promise.all(PROVIDERS.map(async (p) => [p, await assetDatabase(store, registry, assets[p])])),
  ) as Record<Provider, Database>
  const w: DbWorld = {
    h,
    pg,
    tandemPg,
    world,
    assets,
    db: (p) => databases[p],
    async exec(p, sql, values = []) {
      // setup SQL waits for a starting database (a loaded machine can take longer than a request may)
      await w.db(p).ready()
      await w.db(p).run({ text: sql, values })
    },
    rowsJson: (p, select, values = []) =>
      w.db(p).json({
        text: `SELECT coalesce('[' || string_agg(row_to_json(t)::text, ',') || ']', '[]') FROM (${select}) t`,
        values,
      }),
    api: (method, path, o = {}) => call(h, method, path, { key: world.keys.member, ...o }),
    async rawGet(path, key = world.keys.member) {
      const res = await fetch(`http://127.0.0.1:${h.server.apiPort}${path}`, { headers: { 'x-api-key': key } })
      return { status: res.status, text: await res.text(), headers: res.headers }
    },
    async close() {
      await h.close()
      if (tandemPg !== pg) await tandemPg.close()
      if (!opts.pg) await pg.close()
    },
  }
  return w
}

/** The same tables and rows in every provider: two related tables with awkward values. */
const SCHEMA = [
  `CREATE TABLE authors (id integer PRIMARY KEY, name text NOT NULL UNIQUE, country text)`,
  `CREATE TABLE books (
    id serial PRIMARY KEY,
    title text NOT NULL,
    author_id integer REFERENCES authors (id),
    price numeric(8, 2) CHECK (price >= 0),
    pages integer,
    published date,
    in_print boolean DEFAULT true,
    tags text[],
    meta jsonb,
    big bigint,
    "odd name" text,
    created timestamptz DEFAULT '2024-01-01T00:00:00Z'
  )`,
  `CREATE TABLE bookings (id serial PRIMARY KEY, during tsrange, EXCLUDE USING gist (during WITH &&))`,
  `CREATE SCHEMA hidden`,
  `CREATE TABLE hidden.secrets (id integer, secret text)`,
  `INSERT INTO hidden.secrets VALUES (1, 'top')`,
  `CREATE VIEW slow AS SELECT 1 AS x FROM pg_sleep(0.4)`,
]

const TITLES = [
  'The Hobbit',
  'the end, or not',
  'Quote "me"',
  'Back\\slash',
  '100% pure',
  'Star*dust',
  '(parens)',
  'Ünïcode ✓',
  "O'Brien's",
  'plain',
]

function seedStatements(): string[] {
  const authors = [`(1, 'Ann', 'NO')`, `(2, 'Bob', NULL)`, `(3, 'Cleo, the "quoted"', 'FR')`, `(4, 'Dee', 'NO')`]
  const books: string[] = []
  for (let i = 1; i <= 60; i++) {
    const title = `${TITLES[i % TITLES.length]} ${i}`.replace(/'/g, "''")
    const author = i % 7 === 0 ? 'NULL' : String((i % 4) + 1)
    const price = i % 9 === 0 ? 'NULL' : ((i * 37) % 6000) / 100
    const pages = i % 11 === 0 ? 'NULL' : String(50 + ((i * 53) % 900))
    const published = i % 5 === 0 ? 'NULL' : `'20${String(10 + (i % 14)).padStart(2, '0')}-0${(i % 9) + 1}-1${i % 10}'`
    const inPrint = i % 6 === 0 ? 'NULL' : i % 2 === 0 ? 'true' : 'false'
    const tags = i % 4 === 0 ? 'NULL' : `ARRAY['t${i % 3}', 'x,y']`
    const meta = i % 3 === 0 ? 'NULL' : `'{"n": ${i}, "s": "v${i % 4}"}'`
    const big = i % 10 === 0 ? '9007199254740993' : String(i * 1000)
    const odd = i % 2 ? `'odd ${i % 3}'` : 'NULL'
    books.push(
      `('${title}', ${author}, ${price}, ${pages}, ${published}, ${inPrint}, ${tags}, ${meta}, ${big}, ${odd})`,
    )
  }
  return [
    `INSERT INTO authors VALUES ${authors.join(', ')}`,
    `INSERT INTO books (title, author_id, price, pages, published, in_print, tags, meta, big, "odd name") VALUES ${books.join(', ')}`,
    `ANALYZE`,
  ]
}

export async function seed(w: DbWorld, p: Provider): Promise<void> {
  await w.db(p).ready()
  for (const sql of [...SCHEMA, ...seedStatements()]) await w.exec(p, sql)
}
