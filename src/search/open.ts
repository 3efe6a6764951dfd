// Opens search where the server keeps its data: PostgreSQL's own full-text search on
// --postgres-url (shared by the cluster), else PGlite in the data dir; the same SQL either way.
// The indexer follows commits from the start; the engine opens beside the server's start (PGlite
// takes a second or two) and every statement waits for it.
import { randomUUID } from 'node:crypto'
import type { DocService } from '../collab/doc-service.js'
import type { GroupCommitter } from '../collab/group-commit.js'
import type { Asset } from '../control/assets.js'
import type { HookedControlStore } from '../control/hooked-store.js'
import type { Config } from '../infra/config.js'
import { dataDirPath } from '../infra/data-dir.js'
import type { Logger } from '../infra/log.js'
import type { PgPool } from '../pg/pool.js'
import type { DocStore } from '../storage/doc-store.js'
import type { SearchDb } from './db.js'
import { SearchIndexer } from './indexer.js'
import { SearchIndex } from './search-index.js'
import { searchOver, type Search } from './service.js'

export interface SearchParts {
  config: Config
  pg: PgPool | undefined
  control: HookedControlStore
  docs: DocService
  store: DocStore
  log: Logger
  tables?: (asset: Asset) => Promise<string[]>
}

async function openDb(config: Config, pg: PgPool | undefined): Promise<SearchDb> {
  if (pg) return (await import('./postgres.js')).PgSearchDb.open(pg, config.postgresSchema)
  const { PgliteSearchDb } = await import('./pglite.js')
  // --doc-storage memory: the index is as short-lived as the documents
  const dir = config.docStorage === 'memory' ? `memory://search-${randomUUID()}` : dataDirPath(config.dataDir, 'search')
  return PgliteSearchDb.open({
    dir,
    deadlineMs: config.dbStatementTimeoutMs,
    sharedBuffersMb: config.pgliteSharedBuffersMb,
  })
}

/** A SearchDb whose statements wait for the engine to open. */
function openingDb(engine: SearchDb['engine'], opening: Promise<SearchDb>): SearchDb {
  return {
    engine,
    query: async (sql, params) => (await opening).query(sql, params),
    maintain: async () => (await opening).maintain(),
    close: async () => (await opening.catch(() => undefined))?.close(),
  }
}

/** Whether the engine has opened by now. */
async function isOpen(opening: Promise<SearchDb>): Promise<boolean> {
  return Promise.race([
    opening.then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((r) => setImmediate(() => r(false))),
  ])
}

/**
 * `close(exiting)`: a close while the engine is still opening (PGlite's first open runs initdb,
 * seconds) waits for the open and then closes it, so nothing writes in the data dir once the
 * server has closed (a server started right after on the same dir would find it still open);
 * when the process exits right after, the open is left to the exit.
 */
export async function startSearch(
  p: SearchParts,
  committer: GroupCommitter,
): Promise<{ search: Search; close(exiting: boolean): Promise<void> }> {
  const opening = openDb(p.config, p.pg)
  opening.catch((err: unknown) => p.log.error({ err }, 'search index failed to open'))
  const index = new SearchIndex(openingDb(p.pg ? 'postgres' : 'pglite', opening), (err) =>
    p.log.warn({ err }, 'search index maintenance (VACUUM) failed; retried after more writes'),
  )
  const indexer = new SearchIndexer({
    index,
    control: p.control,
    docs: p.docs,
    store: p.store,
    log: p.log,
    debounceMs: p.config.searchDebounceMs,
    ...(p.tables ? { tables: p.tables } : {}),
  })
  await indexer.start(committer)
  return {
    search: searchOver(p.control, index, indexer, p.log),
    async close(exiting) {
      if (!(await isOpen(opening))) {
        // still opening: the open windows keep their marks for the next start
        const closed = opening
          .then((db) => db.close())
          .catch((err: unknown) => p.log.warn({ err }, 'search index close failed'))
        if (!exiting) await closed
        return
      }
      await indexer.flush()
      await index.db.close()
    },
  }
}
