// One database asset as the registry holds it: its settings (the fingerprint that says when they
// changed), its instance and the promises that keep opening and closing one at a time, its gate and
// schema cache. The registry decides when an entry opens, suspends or retires; this file says what
// an entry is and which phase its fields amount to, so `status()` and the PGlite budget read the
// same answer.
import { createHash } from 'node:crypto'
import { Gate } from './gate.js'
import type { CatalogStatement } from './catalog.js'
import type { DbInstance } from './instance.js'
import type { DatabaseAsset, RegistryOptions } from './options.js'
import { SchemaCache } from './schema-cache.js'

export type Phase = 'new' | 'starting' | 'ready' | 'suspending' | 'suspended'

export interface Entry {
  id: string
  provider: string
  connectionUrl?: string
  fingerprint: string
  instance: DbInstance | null
  opening: Promise<DbInstance> | null
  closing: Promise<void> | null
  everOpened: boolean
  retired: boolean
  gate: Gate
  schema: SchemaCache
  lastUsed: number
  idleTimer?: NodeJS.Timeout
}

/** What identifies an asset's settings: a change of provider or URL means a new instance. */
export function fingerprintOf(asset: DatabaseAsset): string {
  return createHash('sha256')
    .update(`${asset.provider}\0${asset.connectionUrl ?? ''}`)
    .digest('hex')
}

/** A fresh entry, nothing open yet. `json` runs the schema cache's introspection through the registry. */
export function newEntry(
  asset: DatabaseAsset,
  o: RegistryOptions,
  now: () => number,
  json: (e: Entry, s: CatalogStatement) => Promise<string>,
): Entry {
  const e: Entry = {
    id: asset.id,
    provider: asset.provider,
    fingerprint: fingerprintOf(asset),
    instance: null,
    opening: null,
    closing: null,
    everOpened: false,
    retired: false,
    // PGlite runs one statement at a time; a pool takes the configured concurrency
    gate: new Gate(asset.provider === 'pglite' ? 1 : o.concurrency, o.queueLimit, o.deadlineMs),
    schema: undefined as unknown as SchemaCache,
    lastUsed: now(),
    ...(asset.connectionUrl ? { connectionUrl: asset.connectionUrl } : {}),
  }
  e.schema = new SchemaCache(o.schemas, (s) => json(e, s), now)
  return e
}

export function phaseOf(e: Entry): Phase {
  return e.instance ? 'ready' : e.opening ? 'starting' : e.closing ? 'suspending' : e.everOpened ? 'suspended' : 'new'
}

/** A PGlite entry that holds (or is about to hold, or still holds) a worker: what the memory budget counts. */
export function holdsPglite(e: Entry): boolean {
  return e.provider === 'pglite' && (e.instance !== null || e.opening !== null || e.closing !== null)
}
