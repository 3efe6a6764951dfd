// How each provider opens an instance for an entry: a PGlite worker over the asset's directory under
// the data dir, or a pool on the asset's PostgreSQL. The registry decides when (after the budget
// made room, never while the previous instance is closing); this is the one place that knows what
// opening means per provider, so a new provider is one branch here and one in `options.ts`.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { dataDirPath } from '../infra/data-dir.js'
import type { Entry } from './entry.js'
import type { DbInstance } from './instance.js'
import { pgliteDirName, type RegistryOptions } from './options.js'
import { PgliteInstance } from './pglite/instance.js'
import { PostgresInstance } from './postgres/instance.js'

export async function openProviderInstance(entry: Entry, o: RegistryOptions, now: () => number): Promise<DbInstance> {
  if (entry.provider === 'pglite') {
    const root = dataDirPath(o.dataDir, 'pglite')
    await mkdir(root, { recursive: true })
    const t0 = now()
    const instance = await PgliteInstance.open({
      dataDir: join(root, pgliteDirName(entry.id)),
      deadlineMs: o.deadlineMs,
      sharedBuffersMb: o.pgliteSharedBuffersMb,
    })
    o.log.info({ asset: entry.id, ms: now() - t0, resumed: entry.everOpened }, 'pglite database opened')
    return instance
  }
  return new PostgresInstance({
    connectionUrl: entry.connectionUrl!,
    poolSize: o.concurrency,
    deadlineMs: o.deadlineMs,
    connectTimeoutMs: o.connectTimeoutMs,
  })
}
