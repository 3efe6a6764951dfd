// What the database registry is told: which providers exist, the settings it runs under (from the
// config table), and how an asset's PGlite directory is named.
import { createHash } from 'node:crypto'
import type { Config } from '../infra/config.js'
import type { Logger } from '../infra/log.js'
import { ManagedPostgres } from './managed/provision.js'

export const PROVIDERS = ['pglite', 'postgres'] as const
/** The provider of a database asset recorded without settings (created before providers existed). */
export const DEFAULT_PROVIDER = 'pglite'

export interface DatabaseAsset {
  id: string
  provider: string
  /** postgres only; a secret */
  connectionUrl?: string
}

export interface RegistryOptions {
  dataDir: string
  schemas: readonly string[]
  deadlineMs: number
  concurrency: number
  queueLimit: number
  startWaitMs: number
  retryAfterSec: number
  connectTimeoutMs: number
  pgliteMaxOpen: number
  idleMs: number
  pgliteSharedBuffersMb: number
  log: Logger
  /** a cluster node (--redis-url): PGlite assets, local to one node's data dir, are refused */
  clusterMode?: boolean
  /** Tandem's own PostgreSQL (--postgres-url): new database assets get a database there by default */
  managed?: ManagedPostgres
  now?: () => number
  /** Told of every 503, with its reason (metrics). */
  onUnavailable?: (reason: Unavailable) => void
}

/** Why a statement was refused or stopped with a 503. */
export type Unavailable =
  'starting' | 'suspended' | 'saturated' | 'unreachable' | 'deadline' | 'crashed' | 'closing' | 'unconfigured'

export function registryOptions(config: Config, log: Logger): RegistryOptions {
  return {
    dataDir: config.dataDir,
    clusterMode: Boolean(config.redisUrl),
    schemas: config.dbSchemas,
    deadlineMs: config.dbStatementTimeoutMs,
    concurrency: config.dbConcurrency,
    queueLimit: config.dbQueueLimit,
    startWaitMs: config.dbStartWaitMs,
    retryAfterSec: config.dbRetryAfterSec,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    pgliteMaxOpen: config.pgliteMaxOpen,
    idleMs: config.pgliteIdleMs,
    pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
    log,
    ...(config.postgresUrl
      ? {
          managed: new ManagedPostgres({
            url: config.postgresUrl,
            schema: config.postgresSchema,
            connectTimeoutMs: config.dbConnectTimeoutMs,
          }),
        }
      : {}),
  }
}

/** A directory name for an asset id: ids of plain characters as they are, others (dots) hashed. */
export function pgliteDirName(assetId: string): string {
  return /^[A-Za-z0-9_-]{1,200}$/.test(assetId)
    ? assetId
    : '~' + createHash('sha256').update(assetId).digest('hex').slice(0, 40)
}
