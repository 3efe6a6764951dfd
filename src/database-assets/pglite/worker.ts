// Worker thread entry: owns one PGlite instance (one data directory) and runs the statements the
// main thread sends, one at a time. PGlite blocks the thread it runs on, hence this thread; the main
// thread enforces the query deadline by terminating it.
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite, type PGliteOptions } from '@electric-sql/pglite'
import type { SqlErrorFields } from '../db-error.js'
import type { FromWorker, ToWorker, WorkerInit } from './protocol.js'

const port = parentPort!
const init = workerData as WorkerInit
const post = (m: FromWorker) => port.postMessage(m)

// Parameters arrive as the text PostgreSQL should parse: hand every one over unchanged instead of
// letting PGlite re-serialise it by type (its bytea serialiser, for one, refuses strings).
const asText = new Proxy({}, { get: () => (x: unknown) => x })

function errorFields(e: unknown): SqlErrorFields {
  const err = (e ?? {}) as Record<string, unknown>
  const out: SqlErrorFields = {
    code: typeof err.code === 'string' ? err.code : 'XX000',
    message: typeof err.message === 'string' ? err.message : String(e),
  }
  for (const k of ['detail', 'hint', 'constraint', 'table', 'column'] as const)
    if (typeof err[k] === 'string' && err[k]) out[k] = err[k] as string
  return out
}

let db: PGlite
try {
  db = new PGlite({
    dataDir: init.dataDir,
    ...(init.wasmModule ? { pgliteWasmModule: init.wasmModule as NonNullable<PGliteOptions['pgliteWasmModule']> } : {}),
    postgresqlconf: init.conf,
  })
  await db.waitReady
  post({ type: 'ready' })
} catch (e) {
  post({ type: 'open-failed', message: (e as Error)?.message ?? String(e) })
  port.close()
  process.exit(1)
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'close') {
    db.close()
      .catch(() => undefined)
      .finally(() => {
        post({ type: 'closed' })
        port.close()
      })
    return
  }
  if (m.type === 'script') {
    db.exec(m.sql)
      .then(() => post({ type: 'result', id: m.id, rows: [], rowCount: null }))
      .catch((e: unknown) => post({ type: 'error', id: m.id, error: errorFields(e) }))
    return
  }
  db.query(m.sql, m.params, { rowMode: 'array', serializers: asText })
    .then((r) =>
      post({
        type: 'result',
        id: m.id,
        rows: r.rows as unknown[][],
        rowCount: r.rows.length > 0 ? r.rows.length : (r.affectedRows ?? 0),
      }),
    )
    .catch((e: unknown) => post({ type: 'error', id: m.id, error: errorFields(e) }))
})
