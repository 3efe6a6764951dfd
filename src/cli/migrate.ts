// `tandem migrate --from-data-dir DIR --postgres-url URL [--postgres-schema S]`: copies a LevelDB
// data dir (documents with their attributed logs, snapshots and history records, the control
// plane, the signing keys, and each PGlite database asset into a database of its own on that
// server) into PostgreSQL, then verifies the copy and says so. A data dir without LevelDB (its
// server ran on PostgreSQL already) has only its PGlite database assets moved. Resumable: run it
// again after an interruption. Exit 0 only when the verification found no difference.
import { access, readFile } from 'node:fs/promises'
import type { JWK } from 'jose'
import { addPgKeys, readPgKeys } from '../auth/keys/postgres.js'
import { PgControlStore } from '../control/postgres.js'
import { dataDirPath } from '../infra/data-dir.js'
import { loadConfig, type Config } from '../infra/config.js'
import { copyStorage, type CopyOptions, type CopySource, type CopyTarget } from '../migrate/copy.js'
import { movedRecords, moveDatabases, moveDatabasesInPlace, pgliteAssets } from '../migrate/database-assets.js'
import { verifyCopy } from '../migrate/verify.js'
import { ManagedPostgres } from '../database-assets/managed/provision.js'
import { openPgPool } from '../pg/open.js'
import { PgDocStore } from '../storage/postgres/store.js'
import { PgSuggestionStore } from '../suggestions/postgres.js'
import { PgVersionStore } from '../versions/postgres.js'
import { openBackend } from '../compose/backend.js'
import { takeFlags } from './args.js'

const USAGE = 'usage: tandem migrate --from-data-dir DIR --postgres-url URL [--postgres-schema S]\n'

async function readDataDirKeys(dataDir: string): Promise<JWK[]> {
  try {
    const parsed = JSON.parse(await readFile(dataDirPath(dataDir, 'signingKeys'), 'utf8')) as { keys?: JWK[] }
    if (!Array.isArray(parsed.keys))
      throw new Error(`${dataDirPath(dataDir, 'signingKeys')}: expected a JWKS ({"keys": [...]})`)
    return parsed.keys
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
}

export interface MigrateIo {
  out: (line: string) => void
  err: (line: string) => void
  /** tests: small chunks and an interruption point */
  copy?: CopyOptions
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  )

const managedOn = (config: Config) =>
  new ManagedPostgres({
    url: config.postgresUrl,
    schema: config.postgresSchema,
    connectTimeoutMs: config.dbConnectTimeoutMs,
  })

async function migrateDatabasesOnly(from: string, config: Config, io: MigrateIo): Promise<number> {
  const pool = await openPgPool(config, 'tandem-migrate')
  try {
    const control = new PgControlStore(pool, { schema: config.postgresSchema, maxSerial: 1 })
    const r = await moveDatabasesInPlace(control, from, managedOn(config), io.err)
    io.out(
      `database assets: ${r.moved} moved (${r.rows} rows), ${r.skipped} already moved, ${r.assets - r.ids.size} left as PGlite`,
    )
    if (r.mismatches.length === 0) {
      io.out(`verified: ${r.ids.size} database assets equal (tables, rows, sequences)`)
      return 0
    }
    io.out(`verification FAILED: ${r.mismatches.length} differences`)
    for (const m of r.mismatches) io.out(`  ${m}`)
    return 1
  } finally {
    await pool.end()
  }
}

const stdio: MigrateIo = { out: (l) => process.stdout.write(l + '\n'), err: (l) => process.stderr.write(l + '\n') }

export async function runMigrate(argv: string[], env: NodeJS.ProcessEnv, io: MigrateIo = stdio): Promise<number> {
  const { values, rest } = takeFlags(argv, ['from-data-dir'])
  const from = values.get('from-data-dir')
  const config = loadConfig(rest, env)
  if (!from || !config.postgresUrl) {
    io.err(`tandem migrate: --from-data-dir and --postgres-url are required\n${USAGE}`)
    return 2
  }
  // A data dir with no LevelDB: its server ran on --postgres-url already; only PGlite assets move.
  if (!(await exists(dataDirPath(from, 'db'))) && (await exists(dataDirPath(from, 'pglite'))))
    return migrateDatabasesOnly(from, config, io)
  // The source: the data dir's stores as a server on it would open them (never created here).
  let source
  try {
    source = await openBackend(
      { ...config, dataDir: from, postgresUrl: '', docStorage: 'leveldb' },
      { createIfMissing: false, hint: 'no data dir there, or a server still runs on it' },
    )
  } catch (err) {
    io.err(`tandem migrate: ${(err as Error).message}`)
    return 1
  }
  let pool
  try {
    pool = await openPgPool(config, 'tandem-migrate')
  } catch (err) {
    await source.close()
    throw err
  }
  try {
    const started = Date.now()
    const src: CopySource = {
      docs: source.docs,
      versions: source.versions,
      suggestions: source.suggestions,
      control: source.control,
      keys: await readDataDirKeys(from),
    }
    const dst: CopyTarget = {
      docs: new PgDocStore(pool),
      versions: new PgVersionStore(pool),
      suggestions: new PgSuggestionStore(pool),
      control: new PgControlStore(pool, { schema: config.postgresSchema, maxSerial: 1 }),
      keys: { read: () => readPgKeys(pool), add: (keys) => addPgKeys(pool, keys) },
    }
    // PGlite database assets become databases of their own on the target server, first: their
    // asset records are copied switched to postgres only once their data verified there.
    const pglite = await pgliteAssets(src.control, from)
    const dbs = await moveDatabases(pglite, dst.control, managedOn(config), io.err)
    const moved = movedRecords(dbs.ids)
    let reported = 0
    const copied = await copyStorage(src, dst, {
      ...io.copy,
      transform: moved.transform,
      onProgress: (p) => {
        io.copy?.onProgress?.(p)
        if (p.kind === 'document' && (p.index + 1 === p.total || Date.now() - reported > 2_000)) {
          reported = Date.now()
          io.err(`copied ${p.index + 1}/${p.total} documents`)
        }
      },
    })
    io.out(
      `copied: ${copied.documents} documents (${copied.documentsSkipped} already complete, ${copied.appended} log entries appended), ` +
        `${copied.controlRecords} control records, ${copied.keysAdded} signing keys added`,
    )
    if (copied.keysBelowExisting)
      io.out(
        'note: the database already had signing keys of its own; they keep signing, the data dir keys were added for verification',
      )
    if (src.keys.length === 0)
      io.out('note: no signing keys in the data dir (--signing-keys deployments keep passing their file)')
    if (pglite.size)
      io.out(
        `database assets: ${dbs.moved} moved (${dbs.rows} rows), ${dbs.skipped} already moved, ${pglite.size - dbs.ids.size} left as PGlite`,
      )
    const v = await verifyCopy(src, dst, { transform: moved.transform, targetOnly: moved.targetOnly })
    v.mismatches.push(...dbs.mismatches)
    const secs = ((Date.now() - started) / 1000).toFixed(1)
    if (v.mismatches.length === 0) {
      io.out(
        `verified: ${v.documents} documents (state vectors, text, ${v.logEntries} log entries and history records equal), ` +
          `${v.controlRecords} control records equal, ${v.keys} signing keys present` +
          (pglite.size ? `, ${dbs.ids.size} database assets equal (tables, rows, sequences)` : '') +
          ` (${secs} s)`,
      )
      return 0
    }
    io.out(`verification FAILED: ${v.mismatches.length} differences`)
    for (const m of v.mismatches.slice(0, 50)) io.out(`  ${m}`)
    if (v.mismatches.length > 50) io.out(`  ... and ${v.mismatches.length - 50} more`)
    return 1
  } finally {
    await pool.end()
    await source.close()
  }
}
