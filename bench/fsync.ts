// `npm run bench:fsync [-- --cycles 2000 --rooms 1,50 --entries 2 --bytes 60 --dir DIR --out DIR]`
// Cost of `--fsync` per write cycle: the LevelDB document store appends N write cycles (one batch of
// `entries` updates of `bytes` each, what a tick of typing produces) with sync off and on, one room
// writing serially and many rooms writing at once (LevelDB joins concurrent writers into one log
// write, so one fsync covers them: the same effect as a group commit). Reports µs per cycle and the
// on/off ratio. The data dir must be on the disk the server uses (default: a temp dir under the
// repository, not /tmp, which may be tmpfs). Writes fsync-<stamp>.json and fsync-latest.json to bench/results/local/
// (--save: bench/results/).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Level } from 'level'
import type { RootDb } from '../src/infra/data-dir.js'
import { LevelDocStore } from '../src/storage/leveldb/store.js'
import { log, num, list, parseFlags } from './lib/args.js'
import { resultsDir } from './lib/results.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const LIMIT_MS = 10 * 60 * 1000

interface Row {
  sync: boolean
  rooms: number
  cycles: number
  usPerCycle: number
  cyclesPerSec: number
  p99CycleUs: number
}

async function run(
  dir: string,
  sync: boolean,
  rooms: number,
  cycles: number,
  entries: number,
  bytes: number,
): Promise<Row> {
  const db = new Level<string, unknown>(join(dir, `db-${sync ? 'sync' : 'nosync'}-${rooms}`)) as RootDb
  await db.open()
  const store = new LevelDocStore(db, { sync })
  await store.exists('warm') // opens the sublevel
  const payload = new Uint8Array(bytes).fill(7)
  const perRoom = Math.ceil(cycles / rooms)
  const latencies: number[] = []
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: rooms }, async (_, r) => {
      for (let c = 0; c < perRoom; c++) {
        const at = Date.now()
        const t = performance.now()
        await store.append(
          `bench/fsync/${r}`,
          c * entries + 1,
          Array.from({ length: entries }, () => ({ user: 'u@example.com', at, update: payload })),
        )
        latencies.push(performance.now() - t)
      }
    }),
  )
  const ms = performance.now() - t0
  await db.close()
  const done = perRoom * rooms
  latencies.sort((a, b) => a - b)
  return {
    sync,
    rooms,
    cycles: done,
    usPerCycle: Math.round((ms * 1000) / done),
    cyclesPerSec: Math.round(done / (ms / 1000)),
    p99CycleUs: Math.round(latencies[Math.floor(latencies.length * 0.99)]! * 1000),
  }
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2))
  const cycles = num(flags, 'cycles') ?? 2000
  const entries = num(flags, 'entries') ?? 2
  const bytes = num(flags, 'bytes') ?? 60
  const roomsList = (list(flags, 'rooms') ?? ['1', '50']).map(Number)
  const base = flags.get('dir') ?? join(ROOT, 'bench', '.fsync-data')
  mkdirSync(base, { recursive: true })
  const dir = mkdtempSync(join(base, 'run-'))
  const timer = setTimeout(() => {
    log(`aborted after ${LIMIT_MS / 1000}s`)
    process.exit(2)
  }, LIMIT_MS)
  timer.unref()
  const rows: Row[] = []
  try {
    for (const rooms of roomsList) {
      for (const sync of [false, true]) {
        log(`${cycles} cycles of ${entries} x ${bytes} B, ${rooms} room(s), sync ${sync ? 'on' : 'off'}`)
        const row = await run(dir, sync, rooms, cycles, entries, bytes)
        log(`  ${row.usPerCycle} µs/cycle (${row.cyclesPerSec} cycles/s, p99 ${row.p99CycleUs} µs)`)
        rows.push(row)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const ratios = roomsList.map((rooms) => {
    const off = rows.find((r) => r.rooms === rooms && !r.sync)!
    const on = rows.find((r) => r.rooms === rooms && r.sync)!
    return {
      rooms,
      offUs: off.usPerCycle,
      onUs: on.usPerCycle,
      ratio: Math.round((on.usPerCycle / off.usPerCycle) * 10) / 10,
    }
  })
  for (const r of ratios) log(`${r.rooms} room(s): sync off ${r.offUs} µs/cycle, on ${r.onUs} µs/cycle, ${r.ratio}x`)
  const out = resultsDir(flags)
  const stamp = new Date()
    .toISOString()
    .replace(/:/g, '-')
    .replace(/\.\d+Z$/, 'Z')
  const result = {
    bench: 'fsync',
    at: new Date().toISOString(),
    cpus: cpus().length,
    loadavg: loadavg(),
    cycles,
    entries,
    bytes,
    rows,
    ratios,
  }
  writeFileSync(join(out, `fsync-${stamp}.json`), JSON.stringify(result, null, 2) + '\n')
  writeFileSync(join(out, 'fsync-latest.json'), JSON.stringify(result, null, 2) + '\n')
}

await main()
