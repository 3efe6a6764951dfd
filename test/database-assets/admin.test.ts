// `tandem admin assets create --type database` (pglite by default) and `tandem admin databases sql`:
// the way an operator gives an embedded database its schema, with no server running and through a
// running server's loopback endpoint (the data dir's PGlite directory is only ever open once).
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runAdmin } from '../../src/cli/admin.js'
import { loadConfig } from '../../src/infra/config.js'
import { call } from '../api/helpers.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness | undefined
let dir: string | undefined
afterAll(async () => {
  await h?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('tandem admin for database assets', () => {
  it('creates a pglite asset, runs a schema script offline and through the running server', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tandem-dbadmin-'))
    const config = loadConfig([], {}, { dataDir: dir, logLevel: 'silent' })
    const json = async (...args: string[]) => {
      const lines: string[] = []
      const code = await runAdmin([...args, '--json'], config, (s) => lines.push(s))
      expect(code, lines.join('\n')).toBe(0)
      return JSON.parse(lines.join('\n'))
    }
    await json('users', 'create', '--email', 'ops@example.com')
    const { key } = await json('keys', 'create', '--user', 'ops@example.com', '--label', 'ops')
    const ws = await json('workspaces', 'create', '--name', 'Ops', '--owner', 'ops@example.com')
    const db = await json('assets', 'create', '--workspace', ws.id, '--type', 'database', '--title', 'Inventory')
    expect(db.database).toEqual({ provider: 'pglite', hasConnectionUrl: false })
    await json('grants', 'set', '--asset', db.id, '--user', 'ops@example.com', '--access', 'edit')
    const schema = join(dir, 'schema.sql')
    await writeFile(
      schema,
      `CREATE TABLE parts (id serial PRIMARY KEY, name text NOT NULL);\nINSERT INTO parts (name) VALUES ('bolt'), ('nut');\n`,
    )
    await json('databases', 'sql', '--asset', db.id, '--file', schema)
    await json(
      'databases',
      'sql',
      '--asset',
      db.id,
      '--sql',
      `CREATE TABLE log (id serial PRIMARY KEY, msg text); INSERT INTO log (msg) SELECT 'line ' || i FROM generate_series(1, 5000) i`,
    )

    h = await startTandem({}, {}, dir)
    expect((await call(h, 'GET', `/api/v0/databases/${db.id}/data/parts?order=id`, { key })).body).toEqual({
      data: [
        { id: 1, name: 'bolt' },
        { id: 2, name: 'nut' },
      ],
    })
    // the server holds the PGlite directory now: the command goes through it
    await json(
      'databases',
      'sql',
      '--asset',
      db.id,
      '--sql',
      `INSERT INTO parts (name) VALUES ('washer'); ANALYZE parts`,
    )
    expect((await call(h, 'GET', `/api/v0/databases/${db.id}/data/parts?select=name&id=eq.3`, { key })).body).toEqual({
      data: [{ name: 'washer' }],
    })
    const { tables } = (await call(h, 'GET', `/api/v0/databases/${db.id}/data`, { key })).body
    expect(tables).toEqual([
      { name: 'log', row_count: expect.any(Number), schema: 'public' },
      { name: 'parts', row_count: 3, schema: 'public' },
    ])
    // never analysed: estimated from its size and column widths, not counted
    expect(tables[0].row_count).toBeGreaterThan(2000)
    expect(tables[0].row_count).toBeLessThan(10_000)
  })
})
