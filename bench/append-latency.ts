// `npm run bench:append [-- --cycles N --docs D --bytes B]`: latency of one write cycle
// (DocStore.appendMany: D documents, one update of B bytes each) on LevelDB and on PostgreSQL,
// cycles run one after another as group commit issues them. PostgreSQL runs twice: with its
// production durability (fsync and synchronous_commit on: the commit is on disk before the call
// returns) and with fsync off (writes reach the OS only, which is what LevelDB's unsynced batch
// write gives). Writes append-latency-latest.json to bench/results/local/ (--save: bench/results/).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import { startPostgres } from '../test/helpers/postgres.js'
import type { RootDb } from '../src/infra/data-dir.js'
import { applySchemaMigrations } from '../src/pg/schema.js'
import { createPgPool } from '../src/pg/pool.js'
import type { AppendWrite, DocStore } from '../src/storage/doc-store.js'
import { LevelDocStore } from '../src/storage/leveldb/store.js'
import { PgDocStore } from '../src/storage/postgres/store.js'
import { log, num, parseFlags } from './lib/args.js'
import { resultsDir } from './lib/results.js'
import { Samples, type Summary } from '../src/loadtest/stats.js'

interface Size {
  cycles: number
  docs: number
  bytes: number
}

async function measure(store: DocStore, size: Size): Promise<Summary> {
  const seqs = new Map<string, number>()
  const body = new Uint8Array(size.bytes).map((_, i) => i % 251)
  const cycle = (): AppendWrite[] =>
    Array.from({ length: size.docs }, (_, d) => {
      const docId = `bench/d${d}/main`
      const firstSeq = (seqs.get(docId) ?? 0) + 1
      seqs.set(docId, firstSeq)
      return { docId, firstSeq, entries: [{ user: 'bench', at: Date.now(), update: body }] }
    })
  await store.load('bench/warm/main') // a deferred read waits for the LevelDB sublevel to open
  for (let i = 0; i < 50; i++) await store.appendMany(cycle()) // warm up
  const s = new Samples()
  for (let i = 0; i < size.cycles; i++) {
    const writes = cycle()
    const t0 = performance.now()
    await store.appendMany(writes)
    s.add(performance.now() - t0)
  }
  return s.summary()
}

async function main(argv: string[]): Promise<void> {
  const flags = parseFlags(argv)
  const size: Size = {
    cycles: num(flags, 'cycles') ?? 2000,
    docs: num(flags, 'docs') ?? 10,
    bytes: num(flags, 'bytes') ?? 200,
  }
  const results: Record<string, Summary> = {}

  const dir = mkdtempSync(join(tmpdir(), 'tandem-append-'))
  try {
    const db = new Level<string, unknown>(join(dir, 'db'), { valueEncoding: 'json' }) as RootDb
    await db.open()
    log(`leveldb: ${size.cycles} cycles of ${size.docs} documents x ${size.bytes} B`)
    results.leveldb = await measure(new LevelDocStore(db), size)
    await db.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }

  for (const durable of [true, false]) {
    const name = durable ? 'postgres' : 'postgres-fsync-off'
    const pgs = await startPostgres({ durable })
    const pool = createPgPool({ url: pgs.url, schema: 'tandem', poolSize: 4 })
    try {
      await applySchemaMigrations(pool, 'tandem')
      log(`${name}: ${size.cycles} cycles`)
      results[name] = await measure(new PgDocStore(pool), size)
    } finally {
      await pool.end()
      await pgs.close()
    }
  }

  const out = { at: new Date().toISOString(), size, unit: 'ms per write cycle', results }
  writeFileSync(join(resultsDir(flags), 'append-latency-latest.json'), JSON.stringify(out, null, 2))
  process.stdout.write('\n| store | p50 ms | p90 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|\n')
  for (const [k, v] of Object.entries(results))
    process.stdout.write(`| ${k} | ${v.p50} | ${v.p90} | ${v.p99} | ${v.max} |\n`)
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:append: ${err instanceof Error ? err.stack : String(err)}\n`)
    process.exit(1)
  },
)
