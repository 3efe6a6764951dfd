// createServer(config) -> both listeners over one data dir. Used by `tandem serve` and by tests.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { Level } from 'level'
import type { KeyRing } from './auth/keys.js'
import { openKeyRing } from './auth/open-keys.js'
import { REVOKE_PREFIX, RevocationList } from './auth/revocation.js'
import type { ClusterNode, ClusterNodeOptions } from './cluster/node.js'
import { RemoteAwareness } from './cluster/remote-awareness.js'
import { RoomRegistry } from './collab/registry.js'
import type { RestRoutes } from './collab/rest.js'
import { enforceRevocations } from './collab/revocation-enforcer.js'
import { startCollabListener, type CollabListener } from './collab/uws/app.js'
import { ydocRoutes } from './collab/ydoc-rest.js'
import { controlPlane } from './control/plane.js'
import { lazyHistoryRoutes } from './history/lazy-routes.js'
import type { RootDb, ServerDeps } from './deps.js'
import type { Config } from './infra/config.js'
import { createLogger, type Logger } from './infra/log.js'
import { createMetrics } from './infra/metrics.js'
import { describePgError } from './pg/pool.js'
import { CLOSE } from './protocol/close-codes.js'
import type { DocStore } from './storage/doc-store.js'
import { StorageHealth, trackWrites } from './storage/health.js'
import { openDocStore, type OpenedDocStore } from './storage/open.js'

const RETENTION_SWEEP_MS = 60 * 60 * 1000 // hourly
/** How soon a key rotated by another process signs here too (verification reloads at once). */
const KEY_RELOAD_MS = 30_000

export interface ServerOptions {
  now?: () => number
  log?: Logger
  /** Start the /api/v0 listener too (default true). */
  api?: boolean
  /** Extra collab REST routes (activity, changeset, ...) by name. */
  restRoutes?: RestRoutes
  /**
   * Called once the collab listener accepts connections, before the API listener has loaded
   * (its modules take most of a start): a restart serves documents that much sooner.
   */
  onCollabListening?: (port: number) => void
  /** cluster mode timings (tests shorten the heartbeat to see a lapse sooner) */
  cluster?: Pick<ClusterNodeOptions, 'heartbeatTtlMs' | 'heartbeatEveryMs' | 'pollMs' | 'gapGraceMs' | 'nodeId'>
}

export interface TandemServer {
  collabPort: number
  apiPort: number
  deps: ServerDeps
  registry: RoomRegistry
  /** the document store in use (LevelDB, memory or PostgreSQL), as rooms and history see it */
  store: DocStore
  /** cluster mode only */
  cluster?: ClusterNode
  /**
   * Idempotent. Stop accepting, flush every room, close sockets with `code` (1001 by default;
   * a draining cluster node uses 1012 so providers reconnect to another node), close storage.
   * `exiting`: the process ends right after, so loaded documents are left to its exit.
   */
  close(code?: number, reason?: string, opts?: { exiting?: boolean }): Promise<void>
}

/** Collab REST routes every server mounts; history routes register here too. */
export async function defaultRestRoutes(): Promise<RestRoutes> {
  return { ...ydocRoutes, ...lazyHistoryRoutes }
}

export async function createServer(config: Config, opts: ServerOptions = {}): Promise<TandemServer> {
  const log = opts.log ?? createLogger(config.logLevel)
  const now = opts.now ?? Date.now
  const metrics = createMetrics()
  await mkdir(config.dataDir, { recursive: true })
  // --postgres-url: documents, control plane and signing keys live in PostgreSQL (one pool per
  // process) and the data dir's LevelDB is not opened at all; otherwise everything is in LevelDB.
  const pg = config.postgresUrl ? await (await import('./pg/open.js')).openPgPool(config) : undefined
  let db: RootDb | undefined
  let keys: KeyRing
  let opened: OpenedDocStore
  try {
    keys = await openKeyRing(config, pg)
    if (!pg) db = await openDataDirDb(config.dataDir)
    opened = await openDocStore(config, db, pg)
  } catch (err) {
    await db?.close()
    await pg?.end()
    throw err
  }
  const storageHealth = new StorageHealth(metrics)
  const store = trackWrites(opened.store, storageHealth)
  log.info({ storage: opened.kind }, 'document storage open')

  // --redis-url: this process is one node of a cluster (docs/cluster.md). Rooms follow their
  // documents on the bus; a lapsed node's clients leave every room's awareness.
  let cluster: ClusterNode | undefined
  const remote = new RemoteAwareness()
  const lapsed: { registry?: RoomRegistry } = {}
  if (config.redisUrl) {
    try {
      // Imported only here: the Redis client is ~480 files, which a plain start never needs.
      const { ClusterNode } = await import('./cluster/node.js')
      cluster = await ClusterNode.start({
        redisUrl: config.redisUrl,
        log,
        registry: metrics.registry,
        ...opts.cluster,
        onNodeLapse: (node) => lapsed.registry?.dropNode(node),
      })
    } catch (err) {
      await opened.close()
      await pg?.end()
      throw err
    }
  }

  let collab: CollabListener | undefined
  let api: { port: number; close(): Promise<void> } | undefined
  // The transport needs the uWS app, which needs the registry: the registry gets a transport
  // that forwards to the listener's once it exists.
  const transportRef: { current?: import('./collab/transport.js').Transport } = {}
  const registry = new RoomRegistry({
    store,
    transport: {
      join: (s, t) => transportRef.current!.join(s, t),
      leave: (s, t) => transportRef.current!.leave(s, t),
      publish: (t, b, e) => transportRef.current!.publish(t, b, e),
    },
    log,
    metrics,
    now,
    maxDocBytes: config.maxDocBytes,
    compactThreshold: config.compactThreshold,
    maxBackpressureBytes: config.maxBackpressureBytes,
    fullStateKeepMs: config.syncCacheMs,
    unloadDelayMs: config.roomUnloadDelayMs,
    commitIntervalMs: config.commitIntervalMs,
    cluster: cluster && { bus: cluster.bus, leases: cluster.leases, remote, cycleIdPrefix: cluster.id },
  })
  lapsed.registry = registry

  let collabPort = 0
  const deps: ServerDeps = {
    config,
    log,
    metrics,
    db,
    pg,
    keys,
    docs: registry,
    now,
    publicUrls: () => ({
      restUrl: config.publicRestUrl || `http://${hostForUrl(config.host)}:${collabPort}`,
      wsUrl: config.publicWsUrl || `ws://${hostForUrl(config.host)}:${collabPort}`,
    }),
  }

  // The token deny-list: re-read at once when this process writes to it, and periodically for
  // writes of other processes sharing the control plane; changes reach live sockets at once.
  const revocations = new RevocationList((await controlPlane(deps)).store)
  enforceRevocations(registry, revocations, metrics)

  try {
    const control = await controlPlane(deps)
    control.store.addHook({
      // awaited by the batch: when `tokens revoke` returns, this process refuses the tokens
      after: async (ops) => {
        if (ops.some((op) => op.key.startsWith(`${REVOKE_PREFIX}/`))) {
          await revocations.refresh(true).catch((err: unknown) => log.error({ err }, 'token deny-list refresh failed'))
        }
      },
    })
    await revocations.start(config.revocationRefreshMs, (err) => log.error({ err }, 'token deny-list refresh failed'))
    const restRoutes = { ...(await defaultRestRoutes()), ...opts.restRoutes }
    const clusterReady = cluster && (() => cluster.ready)
    collab = await startCollabListener({ config, keys, revocations, registry, store, storageHealth, clusterReady, metrics, log, now, restRoutes })
    transportRef.current = collab.transport
    collabPort = collab.port
    opts.onCollabListening?.(collabPort)
    await metrics.withDefaults()
    if (opts.api !== false) {
      const { startApiListener } = await import('./api/server.js')
      api = await startApiListener(deps)
    }
  } catch (err) {
    await revocations.stop()
    collab?.stopListening()
    await registry.close()
    await cluster?.close()
    await opened.close()
    await db?.close()
    await pg?.end()
    throw err
  }

  // Retention: fold history older than the window and prune the log, for every stored document,
  // hourly (requests also do it for the documents they touch). One sweep at a time.
  // In a cluster the sweep runs once per hour somewhere in the cluster, under a lease.
  let sweeping: Promise<unknown> | null = null
  const sweep = () => {
    if (sweeping) return sweeping
    sweeping = import('./history/service.js')
      .then(({ historyServiceOf }) => historyServiceOf({ store, config, now, log }).sweep())
      .catch((err) => log.error({ err }, 'history retention sweep failed'))
      .finally(() => (sweeping = null))
    return sweeping
  }
  const retention = cluster ? undefined : setInterval(sweep, RETENTION_SWEEP_MS)
  retention?.unref()
  cluster?.leases.every('history-retention', RETENTION_SWEEP_MS, async () => {
    await sweep()
  })
  const keyReload = keys.refresh
    ? setInterval(() => keys.refresh!().catch((err) => log.warn({ err: describePgError(err) }, 'signing keys reload failed')), KEY_RELOAD_MS)
    : undefined
  keyReload?.unref()

  let closing: Promise<void> | undefined
  return {
    collabPort,
    apiPort: api?.port ?? 0,
    deps,
    registry,
    store,
    cluster,
    close(code: number = CLOSE.goingAway, reason = 'server shutting down', opts: { exiting?: boolean } = {}) {
      closing ??= (async () => {
        collab!.stopListening()
        await revocations.stop()
        clearInterval(retention)
        clearInterval(keyReload)
        await sweeping
        await api?.close()
        // The rooms' last cycles commit and publish before the bus closes.
        await registry.close(code, reason, opts.exiting)
        collab!.closeAll(code, reason)
        await cluster?.close()
        await store.close()
        await opened.close()
        await db?.close()
        await pg?.end()
      })()
      return closing
    },
  }
}

async function openDataDirDb(dataDir: string): Promise<RootDb> {
  const db = new Level<string, unknown>(join(dataDir, 'db'), { valueEncoding: 'json' }) as RootDb
  try {
    await db.open()
  } catch (err) {
    throw new Error(`cannot open ${join(dataDir, 'db')}: is another tandem process using this data dir? (${(err as Error).message})`)
  }
  return db
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}
