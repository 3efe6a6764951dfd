// `tandem migrate` for database assets: every PGlite database of the data dir becomes a managed
// database on the target PostgreSQL (provision.ts), its tables, rows and sequences copied and
// verified. Its login record is written only once its copy verified, and only then is its asset
// record copied switched to provider postgres; so a rerun redoes an unfinished copy from scratch,
// never overwrites a finished one (a server may have written to it since), and an asset that could
// not move stays a PGlite asset.
import { access } from 'node:fs/promises'
import { join } from 'node:path'
import pg from 'pg'
import { listAssets, type Asset } from '../control/assets.js'
import type { ControlRecord, ControlStore } from '../control/store.js'
import { loginOps, managedLoginOf } from '../database-assets/managed/login-record.js'
import type { ManagedLogin, ManagedPostgres } from '../database-assets/managed/provision.js'
import { DEFAULT_PROVIDER, pgliteDirName } from '../database-assets/options.js'
import { copyDatabase, digestDatabase, digestDifferences } from './database-copy.js'
import { readSchema, unsupportedObjects } from './database-schema.js'
import { normaliseSession, openPgliteSession, pgSession, type SqlSession } from './sql-session.js'
import { dataDirPath } from '../infra/data-dir.js'

/** The data dir's PGlite database assets: asset id -> its directory (absent when never opened). */
export async function pgliteAssets(control: ControlStore, dataDir: string): Promise<Map<string, string>> {
  const dirs = new Map<string, string>()
  for (const a of await listAssets(control)) {
    if (a.type === 'database' && (a.database?.provider ?? DEFAULT_PROVIDER) === 'pglite')
      dirs.set(a.id, join(dataDirPath(dataDir, 'pglite'), pgliteDirName(a.id)))
  }
  return dirs
}

/** How the target keeps the control records of the assets whose database moved. */
export function movedRecords(moved: ReadonlySet<string>) {
  return {
    /** a moved asset's provider is postgres (its login is in its own record) */
    transform(r: ControlRecord): ControlRecord {
      const id = r.key.startsWith('asset/') ? r.key.slice('asset/'.length) : undefined
      if (!id || !moved.has(id)) return r
      return { key: r.key, value: { ...(r.value as Asset), database: { provider: 'postgres' } } }
    },
    /** records only the target has: the moved assets' logins */
    targetOnly: (key: string) => key.startsWith('dblogin/') && moved.has(key.slice('dblogin/'.length)),
  }
}

export interface DatabaseReport {
  /** every asset whose database is on the target now, by this run or an earlier one */
  ids: Set<string>
  moved: number
  skipped: number
  rows: number
  mismatches: string[]
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  )

async function connect(managed: ManagedPostgres, login: ManagedLogin): Promise<SqlSession> {
  const client = new pg.Client({ connectionString: managed.connectionUrl(login), application_name: 'tandem-migrate' })
  client.on('error', () => undefined)
  await client.connect()
  const s = pgSession(client)
  await normaliseSession(s)
  return s
}

const emptySource = (): SqlSession => ({
  rows: async () => [],
  exec: async () => undefined,
  close: async () => undefined,
})

export async function moveDatabases(
  dirs: Map<string, string>,
  target: ControlStore,
  managed: ManagedPostgres,
  log: (line: string) => void,
): Promise<DatabaseReport> {
  const report: DatabaseReport = { ids: new Set(), moved: 0, skipped: 0, rows: 0, mismatches: [] }
  for (const [id, dir] of dirs) {
    const what = `database asset ${id}`
    // An asset whose database was never opened has no directory: it moves as an empty database.
    const src = (await exists(dir)) ? await openPgliteSession(dir) : emptySource()
    try {
      await normaliseSession(src)
      const unsupported = await unsupportedObjects(src)
      if (unsupported.length) {
        report.mismatches.push(
          `${what}: not moved, it holds what this copy does not rebuild: ${unsupported.slice(0, 10).join(', ')}`,
        )
        continue
      }
      const schema = await readSchema(src)
      const want = await digestDatabase(src, schema)
      const done = await managedLoginOf(target, id)
      const login = done ?? (await managed.provision(id, { fresh: true }))
      const dst = await connect(managed, login)
      try {
        if (!done) report.rows += (await copyDatabase(src, dst, schema)).rows
        const diff = digestDifferences(what, want, await digestDatabase(dst, schema))
        if (done) report.ids.add(id) // on the target either way: never overwritten
        if (diff.length) {
          report.mismatches.push(
            ...(done
              ? diff.map((d) => `${d} (moved by an earlier run and not overwritten: it may have been written since)`)
              : diff),
          )
          continue
        }
        if (done) report.skipped++
        else {
          await target.batch(loginOps(id, login))
          report.ids.add(id)
          report.moved++
          log(`moved ${what}: ${schema.tables.length} tables, ${schema.sequences.length} sequences`)
        }
      } finally {
        await dst.close().catch(() => undefined)
      }
    } finally {
      await src.close().catch(() => undefined)
    }
  }
  return report
}

/**
 * A data dir whose server already kept its control plane on PostgreSQL (--postgres-url) and its
 * database assets as PGlite (the default before managed databases): only the databases move, and
 * each moved asset's record switches to postgres in place, under its serial lock.
 */
export async function moveDatabasesInPlace(
  control: ControlStore,
  dataDir: string,
  managed: ManagedPostgres,
  log: (line: string) => void,
): Promise<DatabaseReport & { assets: number }> {
  const dirs = await pgliteAssets(control, dataDir)
  const report = await moveDatabases(dirs, control, managed, log)
  const { transform } = movedRecords(report.ids)
  for (const id of report.ids) {
    const k = `asset/${id}`
    await control.serial(k, async () => {
      const value = await control.get(k)
      if (value !== undefined) await control.batch([{ type: 'put', key: k, value: transform({ key: k, value }).value }])
    })
  }
  return { ...report, assets: dirs.size }
}
