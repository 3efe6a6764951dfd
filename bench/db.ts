// `npm run bench:db [-- --seconds 4 --rows 50000 --concurrency 4 --batch 500 --open 3]`
// Database assets through the API versus the same queries sent directly, for both providers:
//   point     GET ?id=eq.N                                  vs  SELECT * ... WHERE id = $1
//   filtered  GET ?cat=eq.C&price=gt.P&order=id&limit=100   vs  the same WHERE/ORDER/LIMIT
//   insert    POST 500 rows in one body                     vs  one multi-row INSERT
// "Direct" is pg on the same PostgreSQL server, and for PGlite the same worker-thread instance
// (through the registry, no HTTP, no query language). rows/s API / rows/s direct = the API's share.
// Then the memory one open PGlite database costs (process RSS with N open, minus with none).
// Writes db-<stamp>.json and db-latest.json to bench/results/local/ (--save: bench/results/). Bounded: aborts after 10
// minutes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import pg from 'pg'
import { createApiKey } from '../src/control/api-keys.js'
import { createAsset, type Asset } from '../src/control/assets.js'
import { createUser } from '../src/control/users.js'
import { createWorkspace } from '../src/control/workspaces.js'
import type { Database } from '../src/database-assets/registry.js'
import { loadConfig } from '../src/infra/config.js'
import { createServer } from '../src/compose/server.js'
import { startPostgres } from '../test/helpers/postgres.js'
import { num, parseFlags } from './lib/args.js'
import { resultsDir } from './lib/results.js'
import { machineFacts } from './lib/proc.js'
import { round, Samples, type Summary } from '../src/loadtest/stats.js'

const LIMIT_MS = 10 * 60 * 1000
const flags = parseFlags(process.argv.slice(2))
const SECONDS = num(flags, 'seconds') ?? 4
const ROWS = num(flags, 'rows') ?? 50_000
const CONCURRENCY = num(flags, 'concurrency') ?? 4
const BATCH = num(flags, 'batch') ?? 500
const OPEN = num(flags, 'open') ?? 3
const CATS = 500 // ~100 rows per category

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const say = (line: string) => process.stdout.write(`[db bench] ${line}\n`)
const abort = setTimeout(() => {
  say('time limit reached, aborting')
  process.exit(2)
}, LIMIT_MS)
abort.unref()

interface Measure {
  ops: number
  rows: number
  seconds: number
  opsPerSec: number
  rowsPerSec: number
  latencyMs: Summary
}

/** Runs `op` from `workers` loops for `seconds` (after a short warm-up); op returns rows handled. */
async function measure(seconds: number, workers: number, op: (i: number) => Promise<number>): Promise<Measure> {
  const run = async (ms: number, lat?: Samples) => {
    const end = performance.now() + ms
    let ops = 0
    let rows = 0
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        for (let i = w; performance.now() < end; i += workers) {
          const t = performance.now()
          const n = await op(i) // (not `rows += await op(i)`: that reads `rows` before the await)
          rows += n
          lat?.add(performance.now() - t)
          ops++
        }
      }),
    )
    return { ops, rows }
  }
  await run(Math.min(500, seconds * 250))
  const lat = new Samples()
  const t0 = performance.now()
  const { ops, rows } = await run(seconds * 1000, lat)
  const sec = (performance.now() - t0) / 1000
  return {
    ops,
    rows,
    seconds: round(sec),
    opsPerSec: round(ops / sec, 1),
    rowsPerSec: round(rows / sec, 1),
    latencyMs: lat.summary(),
  }
}

/** Deterministic spread of ids/categories so API and direct runs ask for the same rows. */
const pick = (i: number, n: number) => 1 + ((i * 7919) % n)

const TABLE = `CREATE TABLE items (id serial PRIMARY KEY, cat integer NOT NULL, name text NOT NULL, price numeric(10, 2), created timestamptz NOT NULL DEFAULT now())`
const INS_TABLE = `CREATE TABLE items_ins (id serial PRIMARY KEY, cat integer NOT NULL, name text NOT NULL, price numeric(10, 2), created timestamptz NOT NULL DEFAULT now())`
const FILL = `INSERT INTO items (cat, name, price)
  SELECT 1 + i % ${CATS}, 'item ' || i, round(((i * 37) % 10000) / 100.0, 2) FROM generate_series(1, ${ROWS}) i`
const CAT_INDEX = `CREATE INDEX items_cat ON items (cat)`

function batchRows(i: number): { cat: number; name: string; price: number }[] {
  return Array.from({ length: BATCH }, (_, k) => ({
    cat: 1 + ((i + k) % CATS),
    name: `bulk ${i}-${k}`,
    price: ((i * 31 + k) % 10000) / 100,
  }))
}

function insertSql(rows: { cat: number; name: string; price: number }[]): { text: string; values: string[] } {
  const values: string[] = []
  const tuples = rows.map((r) => {
    values.push(String(r.cat), r.name, String(r.price))
    const n = values.length
    return `($${n - 2}, $${n - 1}, $${n})`
  })
  return { text: `INSERT INTO items_ins (cat, name, price) VALUES ${tuples.join(', ')}`, values }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tandem-dbbench-'))
  say(`starting PostgreSQL and Tandem (data dir ${dataDir})`)
  const pgServer = await startPostgres()
  const config = loadConfig(
    [],
    {},
    {
      dataDir,
      apiPort: 0,
      collabPort: 0,
      logLevel: 'silent',
      maxInsertRows: Math.max(BATCH, 1000),
      maxBodyBytes: 16 * 1024 * 1024,
      dbConcurrency: CONCURRENCY,
      dbQueueLimit: 1024,
      pgliteMaxOpen: OPEN + 2,
      pgliteIdleMs: 600_000,
      dbStartWaitMs: 120_000,
    },
  )
  const server = await createServer(config)
  const { store } = server.deps.control
  const now = Date.now()
  await createUser(store, 'bench@example.com', undefined, now)
  const key = (await createApiKey(store, 'bench@example.com', 'bench', now)).key
  const ws = await createWorkspace(store, { name: 'bench', owner: 'bench@example.com' }, now)
  const connectionUrl = await pgServer.createDatabase('bench')
  const assets: Record<'pglite' | 'postgres', Asset> = {
    pglite: await createAsset(
      store,
      {
        workspaceId: ws.id,
        type: 'database',
        title: 'pglite',
        defaultAccess: 'edit',
        database: { provider: 'pglite' },
      },
      now,
    ),
    postgres: await createAsset(
      store,
      {
        workspaceId: ws.id,
        type: 'database',
        title: 'pg',
        defaultAccess: 'edit',
        database: { provider: 'postgres', connectionUrl },
      },
      now,
    ),
  }
  const registry = server.deps.databases
  const dbOf = (p: 'pglite' | 'postgres', a = assets[p]): Database =>
    registry.database({
      id: a.id,
      provider: p,
      ...(a.database?.connectionUrl ? { connectionUrl: a.database.connectionUrl } : {}),
    })
  const base = `/api/v0/databases`
  // node:http with keep-alive: a lighter client than fetch, so the figures show the server's cost.
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  const http = (method: string, path: string, body?: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.apiPort,
          method,
          path,
          agent,
          headers: {
            'x-api-key': key,
            ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  const getRows = async (path: string): Promise<number> => {
    const res = await http('GET', path)
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`)
    return (JSON.parse(res.text) as { data: unknown[] }).data.length
  }
  const floor = await measure(SECONDS, CONCURRENCY, async () =>
    (await http('GET', '/healthz')).status === 200 ? 1 : 0,
  )
  say(`HTTP floor (GET /healthz): ${floor.opsPerSec} req/s, p50 ${floor.latencyMs.p50} ms`)
  const pool = new pg.Pool({ connectionString: connectionUrl, max: CONCURRENCY })

  const results: Record<string, unknown>[] = []
  for (const p of ['pglite', 'postgres'] as const) {
    const db = dbOf(p)
    await db.ready()
    say(`${p}: seeding ${ROWS} rows`)
    for (const text of [TABLE, INS_TABLE, FILL, CAT_INDEX, 'ANALYZE items']) await db.run({ text, values: [] })
    const url = `${base}/${assets[p].id}/data`
    // direct: the same SQL a caller would write, returning ordinary rows
    const direct =
      p === 'postgres'
        ? async (text: string, values: string[]) => (await pool.query(text, values)).rowCount ?? 0
        : async (text: string, values: string[]) => (await db.run({ text, values })).rowCount ?? 0
    const scenarios: [string, (i: number) => Promise<number>, (i: number) => Promise<number>][] = [
      [
        'point read',
        (i) => getRows(`${url}/items?id=eq.${pick(i, ROWS)}`),
        (i) => direct('SELECT * FROM items WHERE id = $1', [String(pick(i, ROWS))]),
      ],
      [
        'filtered read',
        (i) => getRows(`${url}/items?cat=eq.${pick(i, CATS)}&price=gt.10&order=id&limit=100`),
        (i) =>
          direct('SELECT * FROM items WHERE cat = $1 AND price > $2 ORDER BY id LIMIT 100', [
            String(pick(i, CATS)),
            '10',
          ]),
      ],
      [
        `bulk insert (${BATCH} rows)`,
        async (i) => {
          const res = await http('POST', `${url}/items_ins`, JSON.stringify({ data: batchRows(i) }))
          if (res.status !== 200) throw new Error(`POST: ${res.status} ${res.text}`)
          return BATCH
        },
        (i) => {
          const s = insertSql(batchRows(i))
          return direct(s.text, s.values)
        },
      ],
    ]
    for (const [name, viaApi, viaDirect] of scenarios) {
      const api = await measure(SECONDS, CONCURRENCY, viaApi)
      const dir = await measure(SECONDS, CONCURRENCY, viaDirect)
      const ratio = round(api.rowsPerSec / dir.rowsPerSec, 3)
      results.push({ provider: p, scenario: name, api, direct: dir, apiOverDirect: ratio })
      say(
        `${p.padEnd(8)} ${name.padEnd(24)} api ${String(api.rowsPerSec).padStart(10)} rows/s   direct ${String(dir.rowsPerSec).padStart(10)} rows/s   ratio ${ratio}`,
      )
    }
  }

  // Memory of open PGlite databases: create them (initdb), suspend all, then measure re-opens.
  say(`memory: ${OPEN} PGlite databases`)
  await registry.suspend(assets.pglite.id)
  const extra: Asset[] = []
  for (let i = 0; i < OPEN; i++)
    extra.push(
      await createAsset(
        store,
        {
          workspaceId: ws.id,
          type: 'database',
          title: `mem ${i}`,
          defaultAccess: 'edit',
          database: { provider: 'pglite' },
        },
        Date.now(),
      ),
    )
  for (const a of extra) await dbOf('pglite', a).ready()
  for (const a of extra) await registry.suspend(a.id)
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      gc()
      await new Promise((r) => setTimeout(r, 300))
    }
    return process.memoryUsage().rss
  }
  const rssNone = await settle()
  const steps: number[] = []
  for (const a of extra) {
    const db = dbOf('pglite', a)
    await db.ready()
    await db.run({ text: 'SELECT count(*) FROM pg_class', values: [] })
    steps.push(await settle())
  }
  const perDb = (steps[steps.length - 1]! - rssNone) / OPEN
  for (const a of extra) await registry.suspend(a.id)
  const rssAfterSuspend = await settle()
  const memory = {
    open: OPEN,
    sharedBuffersMb: config.pgliteSharedBuffersMb,
    rssNoneMB: round(rssNone / 2 ** 20, 1),
    rssStepsMB: steps.map((s) => round(s / 2 ** 20, 1)),
    perOpenDatabaseMB: round(perDb / 2 ** 20, 1),
    rssAfterSuspendMB: round(rssAfterSuspend / 2 ** 20, 1),
  }
  say(
    `memory per open PGlite database: ${memory.perOpenDatabaseMB} MiB (RSS ${memory.rssNoneMB} -> ${memory.rssStepsMB.join(' -> ')} MiB; ${memory.rssAfterSuspendMB} MiB after suspending them)`,
  )

  await pool.end()
  agent.destroy()
  await server.close()
  await pgServer.close()
  rmSync(dataDir, { recursive: true, force: true })

  const stamp = new Date()
    .toISOString()
    .replace(/:/g, '-')
    .replace(/\.\d+Z$/, 'Z')
  const report = {
    meta: {
      startedAt: stamp,
      command: `npm run bench:db -- ${process.argv.slice(2).join(' ')}`.trim(),
      machine: machineFacts(),
      seconds: SECONDS,
      rows: ROWS,
      concurrency: CONCURRENCY,
      batch: BATCH,
    },
    notes: [
      'rows/s counts rows returned (reads) or inserted (inserts); ratio = API rows/s / direct rows/s',
      'direct = pg on the same PostgreSQL server; for PGlite, the same worker-thread instance without HTTP or the query language',
      "server, API client and direct client share one process and the machine's cores",
    ],
    httpFloor: floor,
    results,
    memory,
  }
  const out = resultsDir(flags)
  writeFileSync(join(out, `db-${stamp}.json`), JSON.stringify(report, null, 2) + '\n')
  writeFileSync(join(out, 'db-latest.json'), JSON.stringify(report, null, 2) + '\n')
  say(`wrote ${join(out, `db-${stamp}.json`)}`)
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`[db bench] failed: ${(err as Error).stack ?? err}\n`)
    process.exit(1)
  },
)
