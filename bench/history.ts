// `npm run bench:history [-- --edits 100000 --users 10 --save | --out DIR]`
// Time and memory to answer activity and changeset on a document with many small attributed
// edits, against the baseline of loading the same document state the way a room does. The log is
// written to a real LevelDB in a temp dir; history is answered by the same service the routes use.
// Every call builds the history from its record (none is kept between calls); repeated queries
// report the median of 5 runs. Writes history-<stamp>.json and history-latest.json to bench/results/local/ (--save:
// bench/results/). Bounded: aborts after 10 min.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { Level } from 'level'
import * as Y from 'yjs'
import type { RootDb } from '../src/infra/data-dir.js'
import { DocBuilds } from '../src/collab/room/doc-builds.js'
import { encodeIndex } from '../src/history/attribution-codec.js'
import { HistoryService, RECORD_NAME } from '../src/history/service.js'
import { DocHistory } from '../src/history/timeline.js'
import type { UpdateEntry } from '../src/storage/doc-store.js'
import { num, parseFlags } from './lib/args.js'
import { resultsDir } from './lib/results.js'
import { LevelDocStore } from '../src/storage/leveldb/store.js'
import { rng } from './lib/seed.js'

const LIMIT_MS = 10 * 60 * 1000
const DOC = 'bench/history/main'
const T0 = Date.UTC(2026, 0, 5, 9)

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

function log(line: string): void {
  process.stdout.write(`[history bench] ${line}\n`)
}

/**
 * Users take turns in bursts of typing (about 85% single-character inserts near their cursor,
 * the rest short deletions), a few hundred ms apart, as people do; each edit is one log entry.
 */
async function writeLog(
  store: LevelDocStore,
  edits: number,
  users: number,
): Promise<{ lastAt: number; logBytes: number; state: Uint8Array }> {
  const rand = rng(42)
  const shared = new Y.Doc()
  const docs = Array.from({ length: users }, () => {
    const d = new Y.Doc()
    d.clientID = Math.floor(rand() * 2 ** 32) // random like real clients, but the same every run
    return d
  })
  const cursors = new Array<number>(users).fill(0)
  let pending: UpdateEntry[] = []
  let seq = 1
  let at = T0
  let logBytes = 0
  let written = 0
  while (written < edits) {
    const u = Math.floor(rand() * users)
    const doc = docs[u]!
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(shared, Y.encodeStateVector(doc)))
    const text = doc.getText('t')
    cursors[u] = Math.min(text.length, Math.floor(rand() * (text.length + 1)))
    at += 2000 + Math.floor(rand() * 60_000) // the next burst starts a while later
    const burst = Math.min(edits - written, 20 + Math.floor(rand() * 180))
    for (let i = 0; i < burst; i++) {
      let update: Uint8Array | null = null
      doc.once('update', (b: Uint8Array) => (update = b))
      if (rand() < 0.85 || text.length < 10) {
        text.insert(cursors[u]!, String.fromCharCode(97 + Math.floor(rand() * 26)))
        cursors[u]!++
      } else {
        const n = 1 + Math.floor(rand() * 3)
        const from = Math.max(0, Math.min(cursors[u]! - n, text.length - n))
        text.delete(from, n)
        cursors[u] = from
      }
      at += 50 + Math.floor(rand() * 400)
      Y.applyUpdate(shared, update!)
      pending.push({ user: `user${u}@example.com`, at, update: update! })
      logBytes += update!.length
      written++
      if (pending.length === 1000) {
        await store.append(DOC, seq, pending)
        seq += pending.length
        pending = []
      }
    }
  }
  if (pending.length) await store.append(DOC, seq, pending)
  const state = Y.encodeStateAsUpdate(shared)
  // what the room's compaction leaves: a snapshot standing for the whole log
  await store.writeSnapshot(DOC, { seq: edits, at, state })
  return { lastAt: at, logBytes, state }
}

async function measure<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; heapMB: number }> {
  gc()
  const before = process.memoryUsage().heapUsed
  const t = performance.now()
  const value = await fn()
  const ms = performance.now() - t
  gc()
  const heapMB = (process.memoryUsage().heapUsed - before) / 2 ** 20
  return { value, ms: round(ms), heapMB: round(heapMB) }
}

/** Hot queries: the median of several runs, the machine being shared. */
async function median<T>(fn: () => Promise<T>, runs = 5): Promise<{ value: T; ms: number; heapMB: number }> {
  const all: { value: T; ms: number; heapMB: number }[] = []
  for (let i = 0; i < runs; i++) all.push(await measure(fn))
  return all.sort((a, b) => a.ms - b.ms)[runs >> 1]!
}

const round = (v: number) => Math.round(v * 10) / 10

async function main(argv: string[]): Promise<void> {
  const flags = parseFlags(argv)
  const edits = num(flags, 'edits') ?? 100_000
  const users = num(flags, 'users') ?? 10
  const out = resultsDir(flags)
  const dir = mkdtempSync(join(tmpdir(), 'tandem-history-bench-'))
  const timer = setTimeout(() => {
    log(`aborted after ${LIMIT_MS / 1000}s`)
    process.exit(2)
  }, LIMIT_MS)
  timer.unref()
  let db = new Level<string, unknown>(join(dir, 'db')) as RootDb
  await db.open()
  try {
    let store = new LevelDocStore(db)
    await store.exists(DOC) // deferred until the sublevel is open (a chained batch is not)
    log(`writing ${edits} edits by ${users} users`)
    const written = await measure(() => writeLog(store, edits, users))
    const { lastAt, logBytes, state } = written.value
    const config = { historyRetentionDays: 3650, historyCheckpointEvery: 1000 }
    const builds = new DocBuilds(2)
    // Jobs run in the event loop here, so the heap figures see the history; a server runs large
    // ones in a worker thread (the same work on another thread).
    const service = () =>
      new HistoryService({ store, config, now: () => lastAt + 1, builds, inLoopMaxBytes: Number.MAX_SAFE_INTEGER })
    const reopen = async () => {
      await db.close()
      db = new Level<string, unknown>(join(dir, 'db')) as RootDb
      await db.open()
      store = new LevelDocStore(db)
      await store.exists(DOC)
    }

    await reopen()
    const baseline = await measure(async () => {
      const loaded = await store.load(DOC)
      const doc = new Y.Doc()
      if (loaded.snapshot) Y.applyUpdate(doc, loaded.snapshot.state)
      for (const u of loaded.updates) Y.applyUpdate(doc, u.update)
      return doc
    })
    const textLength = baseline.value.getText('t').length
    baseline.value.destroy()

    const lastHour = { from: lastAt - 3_600_000, to: lastAt }
    const activityQuery = {
      ...lastHour,
      from: 0,
      by: null,
      limit: 100,
      order: 'desc' as const,
      group: true,
      groupMaxGap: 1000,
    }
    type Run = (s: HistoryService) => Promise<number>
    const activityTask: Run = async (s) =>
      (await s.run(DOC, () => ({ kind: 'activity', query: activityQuery, delta: false }))).answer.entries.length

    // cold: no history record yet, built from the whole log, then written
    await reopen()
    let s = service()
    const cold = await measure(() => activityTask(s))
    const record = await store.readMeta(DOC, RECORD_NAME)
    const held = DocHistory.decode(record!)
    const indexBytes = encodeIndex(held.index.entries()).length
    const entries = held.index.size
    held.destroy()

    // warm: a fresh process reading the history record
    await reopen()
    s = service()
    const warm = await measure(() => activityTask(s))

    // every call builds the history from its record again (none is kept between calls)
    const changesetOf =
      (window: { from: number; to: number }, ydoc = false): Run =>
      async (s) =>
        (await s.run(DOC, () => ({ kind: 'changeset', window: { ...window, by: null }, delta: !ydoc, ydoc }))).answer
          .inserted
    const hotActivity = await median(() => activityTask(s))
    const hotActivityUngrouped = await median(
      async () =>
        (
          await s.run(DOC, () => ({
            kind: 'activity',
            query: { ...activityQuery, group: false, limit: 1000 },
            delta: false,
          }))
        ).answer.entries.length,
    )
    const hotChangesetHour = await median(() => changesetOf(lastHour)(s))
    const hotChangesetAll = await median(() => changesetOf({ from: 0, to: lastAt })(s))
    const hotChangesetWithDoc = await median(() => changesetOf({ from: lastHour.from, to: lastHour.from }, true)(s))
    const hotRollback = await median(
      async () =>
        (await s.run(DOC, () => ({ kind: 'rollback', target: { kind: 'to', to: lastHour.from }, unless: null }))).answer
          .update?.length ?? 0,
    )
    const changesetAfterWarm = await measure(async () => {
      await reopen()
      return changesetOf(lastHour)(service())
    })

    const report = {
      bench: 'history',
      at: new Date().toISOString(),
      node: process.version,
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '', loadavg1m: round(loadavg()[0]!) },
      document: { edits, users, textLength, stateBytes: state.length, logBytes, indexEntries: entries },
      sizes: {
        attributionIndexBytes: indexBytes,
        indexPerEditBytes: round(indexBytes / edits),
        indexToDocumentState: Number((indexBytes / state.length).toFixed(3)),
        indexToLog: Number((indexBytes / logBytes).toFixed(3)),
        historyRecordBytes: record?.length ?? 0,
      },
      ms: {
        writeLog: written.ms,
        baselineLoadDocument: baseline.ms,
        activityCold_buildFromLog: cold.ms,
        activityWarm_loadRecord: warm.ms,
        activityHot: hotActivity.ms,
        activityHotUngrouped1000: hotActivityUngrouped.ms,
        changesetHotLastHour: hotChangesetHour.ms,
        changesetHotWholeHistory: hotChangesetAll.ms,
        documentAtHourAgo_ydoc: hotChangesetWithDoc.ms,
        rollbackToHourAgo_computeUpdate: hotRollback.ms,
        changesetWarm_loadRecord: changesetAfterWarm.ms,
      },
      // each time over the baseline's, so runs on a busy machine stay comparable
      timesBaseline: {} as Record<string, number>,
      heapMB: {
        baselineDocument: baseline.heapMB,
        historyBuiltFromLog: cold.heapMB,
        historyLoadedFromRecord: warm.heapMB,
      },
      rssMB: round(process.memoryUsage().rss / 2 ** 20),
      results: {
        activityGroups: hotActivity.value,
        changesetLastHourInserted: hotChangesetHour.value,
        changesetAllInserted: hotChangesetAll.value,
        rollbackUpdateBytes: hotRollback.value,
      },
    }
    for (const [k, v] of Object.entries(report.ms)) {
      if (k !== 'baselineLoadDocument')
        report.timesBaseline[k] = Math.round((v / report.ms.baselineLoadDocument) * 100) / 100
    }
    const stamp = report.at.replace(/[:.]/g, '-').slice(0, 19) + 'Z'
    const json = JSON.stringify(report, null, 2) + '\n'
    writeFileSync(join(out, `history-${stamp}.json`), json)
    writeFileSync(join(out, 'history-latest.json'), json)
    process.stdout.write(json)
    log(`results: ${join(out, `history-${stamp}.json`)}`)
  } finally {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err)
  process.exit(1)
})
