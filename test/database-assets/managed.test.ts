// Database assets on Tandem's own PostgreSQL (created without a provider when the server has
// --postgres-url): a second process serves the same tables, each asset's role reaches its own
// database and nothing else (not another asset's, not Tandem's schema), and no login secret is ever
// logged or shown.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import pg from 'pg'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runAdmin } from '../../src/cli/admin.js'
import { getAsset } from '../../src/control/assets.js'
import { createDatabaseAsset } from '../../src/database-assets/create.js'
import { DatabaseRegistry, registryOptions } from '../../src/database-assets/registry.js'
import { assetDatabase } from '../../src/database-assets/resolve.js'
import { createLogger } from '../../src/infra/log.js'
import { managedLoginOf } from '../../src/database-assets/managed/login-record.js'
import type { ManagedLogin } from '../../src/database-assets/managed/provision.js'
import { loadConfig } from '../../src/infra/config.js'
import { call, grant, makeWorld, type World } from '../api/helpers.js'
import { startPostgres, type PgServer } from '../helpers/postgres.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

const SCHEMA = 'tandem_managed'
let server: PgServer
let a: Harness
let b: Harness
let world: World
let adminDir: string
const logs: string[] = []
const adminOut: string[] = []

beforeAll(async () => {
  server = await startPostgres()
  const settings = { postgresUrl: server.url, postgresSchema: SCHEMA, logLevel: 'info' as const }
  const sink = new Writable({ write: (chunk, _enc, cb) => (logs.push(String(chunk)), cb()) })
  // one after the other: the first runs the migrations
  a = await startTandem(settings, { log: pino({ level: 'info' }, sink) })
  b = await startTandem(settings, { log: pino({ level: 'info' }, sink) })
  world = await makeWorld(a, 'managed')
  adminDir = await mkdtemp(join(tmpdir(), 'tandem-managed-admin-'))
}, 60_000)

afterAll(async () => {
  await a?.close()
  await b?.close()
  await server?.close()
  if (adminDir) await rm(adminDir, { recursive: true, force: true })
})

/** `tandem admin ... --json` as an operator runs it: its own process state, the shared control plane. */
async function admin(...args: string[]) {
  const config = loadConfig(
    [],
    {},
    { dataDir: adminDir, logLevel: 'silent', postgresUrl: server.url, postgresSchema: SCHEMA },
  )
  const lines: string[] = []
  const code = await runAdmin([...args, '--json'], config, (s) => lines.push(s))
  adminOut.push(...lines)
  expect(code, lines.join('\n')).toBe(0)
  return JSON.parse(lines.join('\n'))
}

async function newDatabase(title: string, sql: string): Promise<string> {
  const asset = await admin(
    'assets',
    'create',
    '--workspace',
    world.workspaceId,
    '--type',
    'database',
    '--title',
    title,
  )
  expect(asset.database).toEqual({ provider: 'postgres', hasConnectionUrl: false })
  await grant(a, asset.id, world.users.member, 'edit')
  await admin('databases', 'sql', '--asset', asset.id, '--sql', sql)
  return asset.id
}

async function loginOf(assetId: string): Promise<ManagedLogin> {
  const login = await managedLoginOf(a.server.deps.control.store, assetId)
  expect(login).toBeDefined()
  return login!
}

/** A connection as the asset's role, to its own database or (`database`) another one of the server. */
async function connectAs(login: ManagedLogin, database = login.database): Promise<pg.Client> {
  const u = new URL(a.server.deps.databases.managed!.connectionUrl(login))
  u.pathname = '/' + database
  const c = new pg.Client({ connectionString: u.href })
  await c.connect()
  return c
}

async function sqlState(c: pg.Client, text: string): Promise<string> {
  return c.query(text).then(
    () => 'ok',
    (e: { code?: string }) => e.code ?? 'no code',
  )
}

const member = (h: Harness, method: string, path: string, body?: object) =>
  call(h, method, path, { key: world.keys.member, ...(body ? { body } : {}) })

describe("database assets on Tandem's own PostgreSQL", () => {
  it('are created by default with --postgres-url, and a second process serves the same tables and rows', async () => {
    const id = await newDatabase(
      'Inventory',
      `CREATE TABLE parts (id serial PRIMARY KEY, name text NOT NULL UNIQUE); INSERT INTO parts (name) VALUES ('bolt'), ('nut')`,
    )
    const rows = `/api/v0/databases/${id}/data/parts?order=id`
    expect((await member(a, 'GET', rows)).body).toEqual({
      data: [
        { id: 1, name: 'bolt' },
        { id: 2, name: 'nut' },
      ],
    })
    expect((await member(b, 'GET', rows)).body).toEqual({
      data: [
        { id: 1, name: 'bolt' },
        { id: 2, name: 'nut' },
      ],
    })
    expect((await member(b, 'POST', `/api/v0/databases/${id}/data/parts`, { data: { name: 'washer' } })).status).toBe(
      200,
    )
    expect((await member(a, 'GET', `${rows}&select=name&id=gt.2`)).body).toEqual({ data: [{ name: 'washer' }] })
    // a constraint violation seen from either process is the same 409
    const dup = await member(a, 'POST', `/api/v0/databases/${id}/data/parts`, { data: { name: 'washer' } })
    expect(dup.status).toBe(409)
    expect((await member(b, 'GET', `/api/v0/databases/${id}/data`)).body).toEqual({
      tables: [{ name: 'parts', row_count: expect.anything(), schema: 'public' }],
    })
  })

  it("reach nothing but their own database: not another asset's tables, not Tandem's, not through any path", async () => {
    const mine = await newDatabase('Mine', `CREATE TABLE mine (id integer PRIMARY KEY); INSERT INTO mine VALUES (1)`)
    const theirs = await newDatabase(
      'Theirs',
      `CREATE TABLE secret_y (id integer, secret text); INSERT INTO secret_y VALUES (1, 'top')`,
    )
    const base = `/api/v0/databases/${mine}/data`
    expect((await member(a, 'GET', base)).body).toEqual({
      tables: [{ name: 'mine', row_count: expect.anything(), schema: 'public' }],
    })
    for (const table of [
      'secret_y',
      'public.secret_y',
      `${SCHEMA}.control_records`,
      'control_records',
      'information_schema.tables',
      'pg_catalog.pg_authid',
      'pg_catalog.pg_roles',
      'pg_catalog.pg_database',
    ]) {
      const r = await member(a, 'GET', `${base}/${encodeURIComponent(table)}`)
      expect(r.status, table).toBe(404)
      expect((await member(a, 'POST', `${base}/${encodeURIComponent(table)}`, { data: { id: 2 } })).status, table).toBe(
        404,
      )
    }

    const login = await loginOf(mine)
    const other = await loginOf(theirs)
    expect(login.role).not.toBe(other.role)
    expect(login.database).not.toBe(other.database)
    const own = await connectAs(login)
    try {
      const who = await own.query(
        `SELECT current_user AS u, (SELECT rolsuper OR rolcreatedb OR rolcreaterole OR rolbypassrls FROM pg_roles WHERE rolname = current_user) AS powers`,
      )
      expect(who.rows[0]).toEqual({ u: login.role, powers: false })
      // Tandem's tables are in another database: not even nameable from here
      expect(await sqlState(own, `SELECT * FROM ${SCHEMA}.control_records`)).toBe('42P01')
      expect(await sqlState(own, `SELECT * FROM postgres.${SCHEMA}.control_records`)).toBe('0A000')
      expect(await sqlState(own, `SET search_path TO ${SCHEMA}, public`)).toBe('ok')
      expect(await sqlState(own, `SELECT * FROM control_records`)).toBe('42P01')
      expect(await sqlState(own, `SELECT * FROM secret_y`)).toBe('42P01')
      expect(await sqlState(own, `CREATE ROLE evil`)).toBe('42501')
      expect(await sqlState(own, `CREATE DATABASE evil`)).toBe('42501')
    } finally {
      await own.end()
    }
    // another asset's database refuses the connection itself
    await expect(connectAs(login, other.database)).rejects.toMatchObject({ code: '42501' })
    // Tandem's own database lets anyone connect (PostgreSQL's default), but its schema grants nothing
    const tandemDb = await connectAs(login, 'postgres')
    try {
      expect(await sqlState(tandemDb, `SELECT * FROM ${SCHEMA}.control_records`)).toBe('42501')
      // without USAGE the schema is skipped on the search path: nothing found
      expect(await sqlState(tandemDb, `SET search_path TO ${SCHEMA}`)).toBe('ok')
      expect(await sqlState(tandemDb, `SELECT * FROM control_records`)).toBe('42P01')
    } finally {
      await tandemDb.end()
    }
  })

  it("need CREATEDB and CREATEROLE of Tandem's user (not superuser): with them the asset is made and served, without them a 503 says so and no asset exists", async () => {
    const { store } = a.server.deps.control
    await server.sql(`CREATE ROLE provisioner LOGIN CREATEDB CREATEROLE; CREATE ROLE limited LOGIN`)
    const registryAs = (user: string) =>
      new DatabaseRegistry(
        registryOptions(
          loadConfig(
            [],
            {},
            { dataDir: adminDir, postgresUrl: server.url.replace('postgres@', `${user}@`), postgresSchema: SCHEMA },
          ),
          createLogger('silent'),
        ),
      )
    const refused = registryAs('limited')
    try {
      const err = await createDatabaseAsset(
        store,
        refused,
        { workspaceId: world.workspaceId, title: 'Refused', id: 'refused-db' },
        Date.now(),
      ).catch((e: unknown) => e)
      expect(err).toMatchObject({ status: 503, message: expect.stringMatching(/needs CREATEDB and CREATEROLE/) })
      expect(await getAsset(store, 'refused-db')).toBeUndefined()
    } finally {
      await refused.close()
    }
    const allowed = registryAs('provisioner')
    try {
      const made = await createDatabaseAsset(
        store,
        allowed,
        { workspaceId: world.workspaceId, title: 'Made', id: 'made-db' },
        Date.now(),
      )
      await grant(a, made.id, world.users.member, 'edit')
      await (await assetDatabase(store, allowed, made)).script(`CREATE TABLE t (id integer); INSERT INTO t VALUES (7)`)
    } finally {
      await allowed.close()
    }
    expect((await member(b, 'GET', `/api/v0/databases/made-db/data/t`)).body).toEqual({ data: [{ id: 7 }] })
  })

  it('never log, show or return a login: not the password, not a connection URL', async () => {
    const id = await newDatabase('Quiet', `CREATE TABLE q (id integer)`)
    const login = await loginOf(id)
    await member(b, 'GET', `/api/v0/databases/${id}/data/q`)
    await member(b, 'GET', `/api/v0/databases/${id}/data/nothere`)
    await member(b, 'GET', `/api/v0/databases/${id}/data/q?id=eq.x`)
    const shown = await admin('assets', 'show', '--id', id)
    expect(shown.database).toEqual({ provider: 'postgres', hasConnectionUrl: false })
    const everything = [...logs, ...adminOut].join('\n')
    expect(everything).toContain(id) // the logs did see this asset
    expect(everything).not.toContain(login.password)
    expect(everything).not.toMatch(/password=|postgres:\/\//)
  })
})
