// Database assets delete and restore by the asset rules: a soft delete answers 404 on every data
// route and keeps the data; restore serves the same rows; a hard delete drops a PGlite asset's
// directory (a postgres asset's pool closes: its database is its owner's). Driven once through
// the API and once through `tandem admin assets delete|restore ID [--hard]` against the running server.
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runAdmin } from '../../src/cli/admin.js'
import { managedName } from '../../src/database-assets/managed/names.js'
import { pgliteDirName } from '../../src/database-assets/registry.js'
import { startDbWorld, type DbWorld } from './fixture.js'

let w: DbWorld
beforeAll(async () => {
  w = await startDbWorld('delete')
  for (const p of ['pglite', 'postgres'] as const) {
    await w.exec(p, 'CREATE TABLE notes (id int PRIMARY KEY, body text)')
    await w.exec(p, "INSERT INTO notes VALUES (1, 'kept')")
  }
}, 120_000)
afterAll(async () => w?.close())

const rows = (id: string) => w.api('GET', `/api/v0/databases/${id}/data/notes`)
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

async function admin(...args: string[]): Promise<{ code: number; out: unknown }> {
  const lines: string[] = []
  const code = await runAdmin([...args, '--json'], w.h.config, (s) => lines.push(s))
  return { code, out: lines.length ? JSON.parse(lines.join('\n')) : null }
}

describe('database asset delete and restore', () => {
  it('a soft delete answers 404 on the data routes and keeps the data; restore serves the same rows (API)', async () => {
    for (const p of ['pglite', 'postgres'] as const) {
      const id = w.assets[p].id
      expect((await rows(id)).body).toEqual({ data: [{ id: 1, body: 'kept' }] })
      // the member may edit the data, not delete the asset
      expect((await w.api('DELETE', `/api/v0/assets/${id}`)).status).toBe(403)
      expect((await w.api('DELETE', `/api/v0/assets/${id}`, { key: w.world.keys.owner })).status).toBe(200)
      expect((await rows(id)).status).toBe(404)
      expect((await w.api('GET', `/api/v0/databases/${id}/data`)).status).toBe(404)
      expect(
        (await w.api('POST', `/api/v0/databases/${id}/data/notes`, { body: { data: { id: 2, body: 'no' } } })).status,
      ).toBe(404)
      expect((await w.api('POST', `/api/v0/assets/${id}/restore`, { key: w.world.keys.admin })).status).toBe(200)
      expect((await rows(id)).body).toEqual({ data: [{ id: 1, body: 'kept' }] })
    }
  }, 60_000)

  it('tandem admin assets delete/restore ID [--hard] goes through the running server; a hard delete drops the PGlite directory', async () => {
    const id = w.assets.pglite.id
    const dir = join(w.h.config.dataDir, 'pglite', pgliteDirName(id))
    expect(await exists(dir)).toBe(true)
    const soft = await admin('assets', 'delete', id)
    expect(soft).toMatchObject({ code: 0, out: { assetId: id, hard: false, by: 'admin' } })
    expect((await rows(id)).status).toBe(404)
    expect(await admin('assets', 'restore', id)).toMatchObject({ code: 0, out: { assetId: id, restored: true } })
    expect((await rows(id)).status).toBe(200)

    expect(await admin('assets', 'delete', id, '--hard')).toMatchObject({
      code: 0,
      out: { hard: true, erasedAtMs: expect.any(Number) },
    })
    expect(await exists(dir)).toBe(false)
    expect((await rows(id)).status).toBe(404)
    expect((await admin('assets', 'restore', id)).code).toBe(1)
    expect((await admin('assets', 'delete', 'no-such-asset')).code).toBe(1)

    // a postgres asset: its rows are the owner's database; hard delete closes Tandem's side only
    const pg = w.assets.postgres.id
    expect((await w.api('DELETE', `/api/v0/assets/${pg}?hard=true`, { key: w.world.keys.owner })).status).toBe(200)
    expect((await rows(pg)).status).toBe(404)
  }, 60_000)

  it('a hard delete of a managed asset drops its database, its role and its login; the rows are gone for good', async () => {
    const id = w.assets.managed.id
    await w.exec('managed', 'CREATE TABLE notes (id int PRIMARY KEY, body text)')
    await w.exec('managed', "INSERT INTO notes VALUES (1, 'kept')")
    const name = managedName(w.h.config.postgresSchema, id)
    const present = async () => ({
      database: (await w.tandemPg.sql('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount,
      role: (await w.tandemPg.sql('SELECT 1 FROM pg_roles WHERE rolname = $1', [name])).rowCount,
      login: (
        await w.tandemPg.sql(`SELECT 1 FROM ${w.h.config.postgresSchema}.control_records WHERE key = $1`, [
          `dblogin/${id}`,
        ])
      ).rowCount,
    })
    expect(await present()).toEqual({ database: 1, role: 1, login: 1 })
    // a soft delete keeps them: restore must serve the same rows
    expect((await w.api('DELETE', `/api/v0/assets/${id}`, { key: w.world.keys.owner })).status).toBe(200)
    expect(await present()).toEqual({ database: 1, role: 1, login: 1 })
    expect((await w.api('DELETE', `/api/v0/assets/${id}?hard=true`, { key: w.world.keys.owner })).status).toBe(200)
    expect(await present()).toEqual({ database: 0, role: 0, login: 0 })
    expect((await rows(id)).status).toBe(404)
  }, 60_000)
})
