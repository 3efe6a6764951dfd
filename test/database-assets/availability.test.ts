// Availability states (spec 7.3): suspended databases resume, saturated ones refuse statements
// without running them, statements past the deadline are stopped, the PGlite memory budget
// suspends the least recently used database, and a stopped PostgreSQL is 503 until it is back.
// Every 503 carries Retry-After.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { PgliteInstance } from '../../src/database-assets/pglite/instance.js'
import { pgliteDirName } from '../../src/database-assets/registry.js'
import { asset, grant, type Reply } from '../api/helpers.js'
import { eventually } from '../helpers/tandem.js'
import { PROVIDERS, startDbWorld, type DbWorld, type Provider } from './fixture.js'

let w: DbWorld

const SETUP = [
  'CREATE TABLE notes (id integer PRIMARY KEY, body text)',
  `INSERT INTO notes VALUES (1, 'one'), (2, 'two')`,
  'CREATE VIEW slow AS SELECT 1 AS x FROM pg_sleep(1.5)',
  'CREATE VIEW stuck AS SELECT 1 AS x FROM pg_sleep(30)',
]

beforeAll(async () => {
  w = await startDbWorld(
    'avail',
    {
      dbStartWaitMs: 0,
      pgliteIdleMs: 1_000,
      dbConcurrency: 1,
      dbQueueLimit: 0,
      dbStatementTimeoutMs: 3_000,
      dbRetryAfterSec: 2,
      pgliteMaxOpen: 1,
    },
    { separateServers: true },
  )
  for (const p of PROVIDERS) {
    await w.db(p).ready()
    for (const sql of SETUP) await w.exec(p, sql)
  }
})
afterAll(() => w?.close())

const registry = () => w.h.server.deps.databases
const notes = (p: Provider) => `/api/v0/databases/${w.assets[p].id}/data/notes?order=id`

function expect503(r: Reply, detail: RegExp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(503)
  expect(r.headers.get('retry-after')).toBe('2')
  expect(r.body.detail).toMatch(detail)
}

/** Retries while the database answers 503 (each with Retry-After), until it serves. */
async function served(path: string, init: { method?: string; body?: object } = {}): Promise<Reply> {
  let last: Reply | undefined
  await eventually(async () => {
    last = await w.api(init.method ?? 'GET', path, init.body ? { body: init.body } : {})
    if (last.status === 503) expect(last.headers.get('retry-after')).toBe('2')
    expect(last.status).not.toBe(503)
  }, 30_000)
  return last!
}

describe('availability', () => {
  it('suspends an idle PGlite database; the next request gets 503 with Retry-After and resumes it', async () => {
    expect((await served(notes('pglite'))).body.data).toHaveLength(2)
    await eventually(() => expect(registry().status(w.assets.pglite.id)?.phase).toBe('suspended'), 15_000)
    expect503(await w.api('GET', notes('pglite')), /suspended/)
    const back = await served(notes('pglite'))
    expect(back).toMatchObject({
      status: 200,
      body: {
        data: [
          { id: 1, body: 'one' },
          { id: 2, body: 'two' },
        ],
      },
    })
  })

  it.each(PROVIDERS)(
    '%s: a saturated database refuses a statement with Retry-After without running it, then serves',
    async (p) => {
      const id = w.assets[p].id
      await served(notes(p))
      const slow = w.api('GET', `/api/v0/databases/${id}/data/slow`)
      await eventually(() => expect(registry().status(id)?.active).toBe(1))
      const refused = await w.api('POST', `/api/v0/databases/${id}/data/notes`, {
        body: { data: { id: 3, body: 'refused' } },
      })
      expect503(refused, /saturated/)
      expect((await slow).status).toBe(200)
      const rows = (await served(notes(p))).body.data
      expect(rows.map((r: { id: number }) => r.id)).toEqual([1, 2]) // the refused insert never ran
      expect(
        (
          await served(`/api/v0/databases/${id}/data/notes`, {
            method: 'POST',
            body: { data: { id: 3, body: 'later' } },
          })
        ).status,
      ).toBe(200)
    },
  )

  it.each(PROVIDERS)(
    '%s: a statement past the query deadline is stopped with 503 and the database serves again',
    async (p) => {
      await served(notes(p))
      expect503(await w.api('GET', `/api/v0/databases/${w.assets[p].id}/data/stuck`), /deadline/)
      const back = await served(notes(p))
      expect(back.status).toBe(200)
      expect(back.body.data.length).toBeGreaterThanOrEqual(2)
    },
  )

  it('keeps at most pglite-max-open PGlite databases open, suspending the least recently used', async () => {
    const second = await asset(w.h, {
      workspaceId: w.world.workspaceId,
      type: 'database',
      title: 'second',
      database: { provider: 'pglite' },
    })
    await grant(w.h, second.id, w.world.users.member, 'edit')
    await served(notes('pglite'))
    expect(registry().status(w.assets.pglite.id)?.phase).toBe('ready')
    // Opening the second one (initdb on first use) suspends the first.
    const list = await served(`/api/v0/databases/${second.id}/data`)
    expect(list.body).toEqual({ tables: [] })
    expect(registry().status(w.assets.pglite.id)?.phase).toBe('suspended')
    expect(registry().openPglite).toBe(1)
    expect((await served(notes('pglite'))).status).toBe(200)
    expect(registry().status(second.id)?.phase).toBe('suspended')
  })

  it('never opens one PGlite data directory twice', async () => {
    await served(notes('pglite'))
    const dataDir = join(w.h.dataDir, 'pglite', pgliteDirName(w.assets.pglite.id))
    await expect(PgliteInstance.open({ dataDir, deadlineMs: 1000, sharedBuffersMb: 16 })).rejects.toThrow(
      /already open/,
    )
  })

  it('counts 503s by reason and open databases in /metrics', async () => {
    const text = (await w.api('GET', '/metrics')).body as string
    expect(text).toMatch(/tandem_db_unavailable_total\{reason="saturated"\} [1-9]/)
    expect(text).toMatch(/tandem_db_unavailable_total\{reason="deadline"\} [1-9]/)
    expect(text).toMatch(/tandem_db_open\{provider="postgres"\} 2/)
  })

  it('answers 503 with Retry-After while PostgreSQL is stopped and serves again once it is back', async () => {
    expect((await served(notes('postgres'))).status).toBe(200)
    await w.pg.stop()
    try {
      expect503(await w.api('GET', notes('postgres')), /unreachable|unavailable/)
      expect503(await w.api('GET', `/api/v0/databases/${w.assets.postgres.id}/data`), /unreachable|unavailable/)
    } finally {
      await w.pg.start()
    }
    expect((await served(notes('postgres'))).body.data.length).toBeGreaterThanOrEqual(2)
  })

  it("answers 503 while Tandem's own PostgreSQL (control plane and managed assets) is stopped and serves again once it is back", async () => {
    expect((await served(notes('managed'))).status).toBe(200)
    await w.tandemPg.stop()
    try {
      const r = await w.api('GET', notes('managed'))
      expect(r.status, JSON.stringify(r.body)).toBe(503)
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(JSON.stringify(r.body)).not.toMatch(/postgres:\/\/|password/)
    } finally {
      await w.tandemPg.start()
    }
    expect((await served(notes('managed'))).body.data.length).toBeGreaterThanOrEqual(2)
  })
})
