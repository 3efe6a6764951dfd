// createServer(config) -> both listeners over one data dir. Used by `tandem serve` and by tests.
import { openBackend } from './backend.js'
import { DELETED_PREFIX } from '../auth/deleted-docs.js'
import { VersionPoll } from '../auth/polled-records.js'
import { REVOKE_PREFIX, RevocationList } from '../auth/revocation.js'
import type { ClusterNode, ClusterNodeOptions } from '../cluster/node.js'
import { RemoteAwareness } from '../cluster/remote-awareness.js'
import { RoomRegistry, roomSettings, type RegistryOptions } from '../collab/registry.js'
import type { RestRoutes } from '../collab/rest/route-model.js'
import { enforceRevocations } from '../collab/revocation-enforcer.js'
import { agentPolicy } from '../agents/approval.js'
import { createCollabApp } from '../collab/listener/choose.js'
import { ydocRoutes } from '../collab/rest/ydoc-routes.js'
import { openControlPlane } from './control-plane.js'
import { lazyHistoryRoutes } from '../history/lazy-routes.js'
import { agentRoutes } from '../suggestions/lazy-routes.js'
import type { SuggestionStore } from '../suggestions/store.js'
import type { HistoryService } from '../history/service.js'
import { startDocLifecycle } from '../lifecycle/deletions.js'
import type { DatabaseRegistry } from '../database-assets/registry.js'
import type { ApiDeps } from '../api/deps.js'
import { Resources } from '../infra/resources.js'
import type { Config } from '../infra/config.js'
import { createLogger, type Logger } from '../infra/log.js'
import { createMetrics, type Metrics } from '../infra/metrics.js'
import { describePgError } from '../pg/pool.js'
import { CLOSE, type CloseCode } from '@tandem/protocol/close-codes'
import type { DocStore } from '../storage/doc-store.js'
import { StorageHealth, trackWrites } from '../storage/health.js'
import { versionState } from '../versions/state.js'
import { versionRoutes } from '../versions/routes.js'
import type { VersionStore } from '../versions/store.js'
import { suggestionEvents, versionCreatedEvents } from '../webhooks/emit.js'
import { WEBHOOK_KIND } from '../webhooks/records.js'
import { Webhooks } from '../webhooks/service.js'
import { searchOff } from '../search/service.js'
import type { Asset } from '../control/assets.js'

const RETENTION_SWEEP_MS = 60 * 60 * 1000 // hourly
const SWEEP_RESCAN_MS = 15_000
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
  /** parts built by the caller instead of the defaults; each a factory, called once per start */
  parts?: ServerParts
}

/**
 * The parts of the per-update path a caller may compose the server from: a measurement can take
 * one away (metrics that record nothing, a store that drops appends, rooms that only relay)
 * without the server knowing. Absent, the server builds its own.
 */
export interface ServerParts {
  metrics?: () => Metrics
  /** wraps the document store the rooms and history use */
  docStore?: (store: DocStore) => DocStore
  buildCommitter?: RegistryOptions['buildCommitter']
  buildRoom?: RegistryOptions['buildRoom']
}

export interface TandemServer {
  collabPort: number
  apiPort: number
  deps: ApiDeps
  registry: RoomRegistry
  /** the document store in use (LevelDB, memory or PostgreSQL), as rooms and history see it */
  store: DocStore
  /** named versions, beside the document store (src/versions/) */
  versions: VersionStore
  /** suggestions held for review, beside the document store (src/suggestions/) */
  suggestions: SuggestionStore
  /** cluster mode only */
  cluster?: ClusterNode
  /**
   * Idempotent. Stop accepting, flush every room, close sockets with `code` (1001 by default;
   * a draining cluster node uses 1012 so providers reconnect to another node), close storage.
   * `exiting`: the process ends right after, so a search engine still opening is left to its exit.
   */
  close(code?: CloseCode, reason?: string, opts?: { exiting?: boolean }): Promise<void>
}

export async function createServer(config: Config, opts: ServerOptions = {}): Promise<TandemServer> {
  const log = opts.log ?? createLogger(config.logLevel)
  const now = opts.now ?? Date.now
  const parts = opts.parts ?? {}
  const metrics = parts.metrics?.() ?? createMetrics()
  // Everything opened below registers its close here once; a failed start unwinds the same stack.
  const resources = new Resources()
  // How the registry and the sockets close: set by close(), read when the stack unwinds.
  let shutdown: { code: CloseCode; reason: string; exiting: boolean } = {
    code: CLOSE.goingAway,
    reason: 'server shutting down',
    exiting: false,
  }
  try {
    // Documents, versions, the control plane and the signing keys: in the data dir, or all in
    // PostgreSQL with --postgres-url (src/backend/).
    const backend = resources.add('backend', await openBackend(config), (b) => b.close())
    const { db, pg, versions, suggestions } = backend
    const keys = await backend.keys()
    const storageHealth = new StorageHealth(metrics)
    const store = trackWrites(parts.docStore?.(backend.docs) ?? backend.docs, storageHealth)
    log.info({ storage: backend.kind }, 'document storage open')

    // --redis-url: this process is one node of a cluster (docs/cluster.md). Rooms follow their
    // documents on the bus. Imported only here: the Redis client is ~480 files a plain start never needs.
    const cluster = config.redisUrl
      ? resources.add(
          'cluster node',
          await (
            await import('../cluster/node.js')
          ).ClusterNode.start({ redisUrl: config.redisUrl, log, registry: metrics.registry, ...opts.cluster }),
          (c) => c.close(),
        )
      : undefined

    // The collab app exists before its routes: rooms publish through its transport. Its sockets
    // close after the registry's shutdown has flushed and closed every room.
    const collabApp = await createCollabApp(config, log)
    resources.defer('collab sockets', () => collabApp.closeAll(shutdown.code, shutdown.reason))
    const remote = new RemoteAwareness()
    const registry = new RoomRegistry({
      store,
      transport: collabApp.transport,
      log,
      metrics,
      now,
      ...roomSettings(config),
      buildCommitter: parts.buildCommitter,
      buildRoom: parts.buildRoom,
      cluster: cluster && { bus: cluster.bus, leases: cluster.leases, remote, cycleIdPrefix: cluster.id },
    })
    // The rooms' last cycles commit and publish before the bus closes.
    resources.defer('rooms', () => registry.close(shutdown.code, shutdown.reason))
    // A lapsed node's clients leave every room's awareness.
    cluster?.onNodeLapse((node) => registry.dropNode(node))

    // The control plane: its store, the tool catalog and the site sweeper (started below).
    const control = await openControlPlane(backend.control, { config, log, now })
    resources.defer('site sweeper', () => control.sweeper.close())
    // Database assets: built on first use (a hard delete) or right after the collab listener is
    // up, so a plain start never loads src/database-assets/ before it serves documents.
    let databases: Promise<DatabaseRegistry> | undefined
    const openDatabases = () =>
      (databases ??= import('../database-assets/metered-registry.js').then((m) =>
        m.createDatabaseRegistry(config, log, metrics),
      ))
    resources.defer('databases', async () => (databases ? (await databases).close() : undefined))

    // The token deny-list: re-read at once when this process writes to it, and periodically for
    // writes of other processes sharing the control plane; changes reach live sockets at once.
    // One read a period tells every cache below whether another process changed its records.
    const versionPoll = new VersionPoll(control.store, config.revocationRefreshMs)
    const revocations = resources.add('token deny-list', new RevocationList(control.store), (r) => r.stop())
    enforceRevocations(registry, revocations, metrics)
    control.store.addHook({
      // awaited by the batch: when `tokens revoke` returns, this process refuses the tokens
      after: async (ops) => {
        if (ops.some((op) => op.key.startsWith(`${REVOKE_PREFIX}/`))) {
          await revocations.refresh(true).catch((err: unknown) => log.error({ err }, 'token deny-list refresh failed'))
        }
      },
    })
    await revocations.start(versionPoll, (err) => log.error({ err }, 'token deny-list refresh failed'))
    // Deleted documents: refused on upgrade and collab REST, their sockets closed (src/lifecycle/).
    // Document histories (activity, changeset, rollback, retention): the service is built on the
    // first history request or sweep, so a plain start never loads the history engine. Each
    // history it builds takes a turn among the rooms' transient Y.Docs, counted in their budget.
    let history: Promise<HistoryService> | undefined
    const openHistory = () =>
      (history ??= import('../history/service.js').then(
        (m) => new m.HistoryService({ store, config, now, log, builds: registry.docBuilds }),
      ))
    const historyMemory = { forget: async (docId: string) => (history ? (await history).forget(docId) : undefined) }
    const { deleted, lifecycle } = await startDocLifecycle(resources, {
      log,
      now,
      control: control.store,
      registry,
      store,
      versions,
      suggestions,
      history: historyMemory,
      databases: openDatabases,
      versionPoll,
    })
    // Webhooks: closed before the rooms' last cycles, which leave marks for the next start.
    const webhooks = resources.add(
      'webhooks',
      new Webhooks({ control: control.store, docs: store, config, log, registry: metrics.registry, now }),
      (w) => w.close(),
    )
    await webhooks.start(registry.committer)
    // Search: the index follows committed documents off the commit path (src/search/); closed
    // before the rooms' last cycles, which leave marks the next start indexes.
    const tables = async (asset: Asset) => {
      const { assetDatabase } = await import('../database-assets/resolve.js')
      return (await (await assetDatabase(control.store, await openDatabases(), asset)).tables(config.dbSchemas)).map(
        (t) => t.name,
      )
    }
    const search =
      config.searchIndex === 'on'
        ? resources.add(
            'search',
            await (
              await import('../search/open.js')
            ).startSearch(
              { config, pg, control: control.store, docs: registry.docs, store, log, tables },
              registry.committer,
            ),
            (s) => s.close(shutdown.exiting),
          )
        : { search: searchOff }
    // A cluster: other nodes hear of these changes at once; their polling stays the fallback.
    cluster?.notices.relay(control.store, {
      [`${REVOKE_PREFIX}/`]: () => revocations.refresh(true),
      [`${DELETED_PREFIX}/`]: () => deleted.records.refresh(true),
      [`${WEBHOOK_KIND}/`]: () => webhooks.refresh(),
    })

    // Agents' content writes: held as suggestions when asked, or as the workspace's registry says.
    const agents = agentPolicy({
      store: control.store,
      catalog: control.catalog,
      joined: registry,
      log,
      notices: cluster?.notices,
    })
    const agentRest = agentRoutes({
      suggestions,
      openHistory,
      notify: suggestionEvents(control.store, log, now),
      agents,
    })
    const restRoutes: RestRoutes = {
      ...ydocRoutes(agents),
      ...lazyHistoryRoutes(openHistory),
      ...agentRest,
      ...versionRoutes(versions, versionCreatedEvents(control.store, log)),
      ...opts.restRoutes,
    }
    const clusterReady = cluster && (() => cluster.ready)
    const collab = await collabApp.listen({
      config,
      keys,
      revocations,
      deleted,
      registry,
      store,
      storageHealth,
      clusterReady,
      metrics,
      log,
      now,
      restRoutes,
      agents,
      versionState: (docId, id) => versionState(versions, docId, id),
    })
    resources.defer('collab listener', () => collab.stopListening())
    const collabPort = collab.port
    opts.onCollabListening?.(collabPort)
    await metrics.withDefaults()

    const deps: ApiDeps = {
      config,
      log,
      metrics,
      db,
      pg,
      keys,
      docs: registry.docs,
      versions,
      control,
      lifecycle,
      databases: await openDatabases(),
      search: search.search,
      now,
      publicUrls: () => ({
        restUrl: config.publicRestUrl || `http://${hostForUrl(config.host)}:${collabPort}`,
        wsUrl: config.publicWsUrl || `ws://${hostForUrl(config.host)}:${collabPort}`,
      }),
      restRoutes,
    }
    const api =
      opts.api === false
        ? undefined
        : resources.add('api listener', await (await import('../api/listener.js')).startApiListener(deps), (a) =>
            a.close(),
          )
    // `tandem admin` on the same data dir goes through this loopback endpoint (LevelDB admits one process).
    const adminEnv = {
      store: control.store,
      now,
      docs: deps.docs,
      sweeper: control.sweeper,
      databases: deps.databases,
      lifecycle,
      webhookAllowPrivate: config.webhookAllowPrivate,
      search: deps.search,
    }
    resources.add(
      'admin endpoint',
      await (await import('../admin/endpoint.js')).startAdminEndpoint(adminEnv, { dataDir: config.dataDir, log }),
      (a) => a.close(),
    )
    await startSweeps(resources, deps)

    scheduleRetention(resources, { open: openHistory, log, cluster })
    if (keys.refresh) {
      const reload = keys.refresh
      const keyReload = setInterval(
        () => reload().catch((err) => log.warn({ err: describePgError(err) }, 'signing keys reload failed')),
        KEY_RELOAD_MS,
      )
      keyReload.unref()
      resources.defer('signing key reload', () => clearInterval(keyReload))
    }

    return {
      collabPort,
      apiPort: api?.port ?? 0,
      deps,
      registry,
      store,
      versions,
      suggestions,
      cluster,
      close(code: CloseCode = CLOSE.goingAway, reason = 'server shutting down', closeOpts: { exiting?: boolean } = {}) {
        collab.stopListening()
        shutdown = { code, reason, exiting: closeOpts.exiting ?? false }
        return resources.close()
      },
    }
  } catch (err) {
    await resources
      .close()
      .catch((closeErr: unknown) => log.error({ err: closeErr }, 'closing a half-started server failed'))
    throw err
  }
}

/**
 * Site sweeps (sources): resumed at start. Each sweep step runs under the control store's serial
 * lock, so several processes picking up the same sweep take turns step by step and never repeat
 * one; on a shared database, sweeps another process created (tandem admin) start here within
 * SWEEP_RESCAN_MS.
 */
async function startSweeps(resources: Resources, deps: ApiDeps): Promise<void> {
  const { sweeper } = deps.control
  await sweeper.start()
  if (!deps.pg) return
  const rescan = setInterval(
    () => sweeper.start().catch((err: Error) => deps.log.warn({ err: err.message }, 'sweep rescan failed')),
    SWEEP_RESCAN_MS,
  )
  rescan.unref()
  resources.defer('sweep rescan', () => clearInterval(rescan))
}

/**
 * Retention: fold history older than the window and prune the log, for every stored document,
 * hourly (requests also do it for the documents they touch). One sweep at a time; in a cluster
 * once per hour somewhere in the cluster, under a lease.
 */
function scheduleRetention(
  resources: Resources,
  o: { open: () => Promise<HistoryService>; log: Logger; cluster: ClusterNode | undefined },
): void {
  let sweeping: Promise<unknown> | null = null
  const sweep = () => {
    sweeping ??= o
      .open()
      .then((history) => history.sweep())
      .catch((err) => o.log.error({ err }, 'history retention sweep failed'))
      .finally(() => (sweeping = null))
    return sweeping
  }
  resources.defer('retention sweep', () => sweeping)
  if (o.cluster) {
    o.cluster.leases.every('history-retention', RETENTION_SWEEP_MS, async () => {
      await sweep()
    })
  } else {
    const timer = setInterval(sweep, RETENTION_SWEEP_MS)
    timer.unref()
    resources.defer('retention timer', () => clearInterval(timer))
  }
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}
