// The one place a process chooses its backend: with --postgres-url, documents, versions, the
// control plane and signing keys live in PostgreSQL (one pool per process) and the data dir's
// LevelDB is not opened; otherwise all of them live in the data dir (documents in memory with
// --doc-storage memory). Used by `tandem serve`, `tandem admin` and the source side of
// `tandem migrate`. The PostgreSQL modules are imported only on that path: a plain start never
// loads them.
import { mkdir } from 'node:fs/promises'
import { loadKeyRing, type KeyRing } from '../auth/keys/ring.js'
import { HookedControlStore } from '../control/hooked-store.js'
import { LevelControlStore } from '../control/leveldb.js'
import type { Config } from '../infra/config.js'
import { openDataDirDb, type RootDb } from '../infra/data-dir.js'
import { Resources } from '../infra/resources.js'
import type { PgPool } from '../pg/pool.js'
import type { DocStore } from '../storage/doc-store.js'
import { LevelDocStore } from '../storage/leveldb/store.js'
import { MemoryDocStore } from '../storage/memory.js'
import { LevelSuggestionStore } from '../suggestions/leveldb.js'
import { MemorySuggestionStore } from '../suggestions/memory.js'
import type { SuggestionStore } from '../suggestions/store.js'
import { LevelVersionStore } from '../versions/leveldb.js'
import { MemoryVersionStore } from '../versions/memory.js'
import type { VersionStore } from '../versions/store.js'

export type BackendSettings = Pick<
  Config,
  | 'dataDir'
  | 'postgresUrl'
  | 'postgresSchema'
  | 'postgresPoolSize'
  | 'postgresQueryTimeoutMs'
  | 'docStorage'
  | 'fsync'
  | 'signingKeys'
>

type BackendKind = 'postgres' | 'leveldb' | 'memory'

export interface Backend {
  /** where documents live */
  kind: BackendKind
  /** the data dir's LevelDB; undefined with --postgres-url */
  db: RootDb | undefined
  /** the process's one pool on --postgres-url */
  pg: PgPool | undefined
  docs: DocStore
  versions: VersionStore
  /** suggestions held for review (src/suggestions/), beside the documents */
  suggestions: SuggestionStore
  control: HookedControlStore
  /** the signing keys, read (or generated into the data dir) on the first call only */
  keys(): Promise<KeyRing>
  /** closes what was opened here, in reverse order; idempotent */
  close(): Promise<void>
}

export interface BackendOptions {
  /** PostgreSQL's application_name for this process's connections */
  applicationName?: string
  /** false: the data dir must hold a LevelDB already (a copy's source), nothing is created in it */
  createIfMissing?: boolean
  /** what to tell the operator when the data dir's LevelDB cannot be opened */
  hint?: string
}

export async function openBackend(config: BackendSettings, o: BackendOptions = {}): Promise<Backend> {
  const resources = new Resources()
  try {
    // PGlite database assets live in the data dir in every deployment
    if (o.createIfMissing !== false) await mkdir(config.dataDir, { recursive: true })
    if (config.postgresUrl) {
      const pg = resources.add(
        'postgres pool',
        await (await import('../pg/open.js')).openPgPool(config, o.applicationName),
        (p) => p.end(),
      )
      const [{ PgDocStore }, { PgVersionStore }, { PgControlStore }, { PgSuggestionStore }] = await Promise.all([
        import('../storage/postgres/store.js'),
        import('../versions/postgres.js'),
        import('../control/postgres.js'),
        import('../suggestions/postgres.js'),
      ])
      const docs = resources.add(
        'document store',
        new PgDocStore(pg, { queryTimeoutMs: config.postgresQueryTimeoutMs }),
        (s) => s.close(),
      )
      const control = new HookedControlStore(
        new PgControlStore(pg, {
          schema: config.postgresSchema,
          maxSerial: Math.floor(config.postgresPoolSize / 2),
          queryTimeoutMs: config.postgresQueryTimeoutMs,
        }),
      )
      return backend(
        'postgres',
        undefined,
        pg,
        docs,
        { versions: new PgVersionStore(pg), suggestions: new PgSuggestionStore(pg) },
        control,
        () => openKeyRing(config, pg),
        resources,
      )
    }
    const db = resources.add(
      'data dir LevelDB',
      await openDataDirDb(config.dataDir, { createIfMissing: o.createIfMissing, hint: o.hint }),
      (d) => d.close(),
    )
    const control = new HookedControlStore(new LevelControlStore(db))
    const keys = () => openKeyRing(config, undefined)
    if (config.docStorage === 'memory') {
      return backend(
        'memory',
        db,
        undefined,
        new MemoryDocStore(),
        { versions: new MemoryVersionStore(), suggestions: new MemorySuggestionStore() },
        control,
        keys,
        resources,
      )
    }
    const docs = resources.add('document store', new LevelDocStore(db, { sync: config.fsync }), (s) => s.close())
    const beside = {
      versions: new LevelVersionStore(db, { sync: config.fsync }),
      suggestions: new LevelSuggestionStore(db, { sync: config.fsync }),
    }
    return backend('leveldb', db, undefined, docs, beside, control, keys, resources)
  } catch (err) {
    await resources.close().catch(() => undefined)
    throw err
  }
}

function backend(
  kind: BackendKind,
  db: RootDb | undefined,
  pg: PgPool | undefined,
  docs: DocStore,
  beside: { versions: VersionStore; suggestions: SuggestionStore },
  control: HookedControlStore,
  openKeys: () => Promise<KeyRing>,
  resources: Resources,
): Backend {
  let keys: Promise<KeyRing> | undefined
  return { kind, db, pg, docs, ...beside, control, keys: () => (keys ??= openKeys()), close: () => resources.close() }
}

/**
 * Where a process's signing keys come from: the --signing-keys file when given, else the database
 * when --postgres-url is set (shared by every process), else the data dir (generated on first
 * start). `tandem token` calls it without a backend: it must not open the data dir's LevelDB,
 * which a running server holds.
 */
export async function openKeyRing(
  config: Pick<Config, 'dataDir' | 'signingKeys' | 'postgresUrl'>,
  pg: PgPool | undefined,
): Promise<KeyRing> {
  if (config.signingKeys) return loadKeyRing(config.dataDir, config.signingKeys)
  if (config.postgresUrl) {
    if (!pg) throw new Error('signing keys: postgres-url is set but no PostgreSQL pool was opened')
    return (await import('../auth/keys/postgres.js')).loadPgKeyRing(pg)
  }
  return loadKeyRing(config.dataDir, '')
}
