// createServer(config) -> both listeners over one data dir. Used by `tandem serve` and by tests.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { Level } from 'level'
import { loadKeyRing } from './auth/keys.js'
import { RoomRegistry } from './collab/registry.js'
import type { RestRoutes } from './collab/rest.js'
import { startCollabListener, type CollabListener } from './collab/uws/app.js'
import { ydocRoutes } from './collab/ydoc-rest.js'
import { historyRoutes } from './history/routes.js'
import { historyServiceOf } from './history/service.js'
import type { RootDb, ServerDeps } from './deps.js'
import type { Config } from './infra/config.js'
import { createLogger, type Logger } from './infra/log.js'
import { createMetrics } from './infra/metrics.js'
import { CLOSE } from './protocol/close-codes.js'
import { LevelDocStore } from './storage/leveldb/store.js'
import { MemoryDocStore } from './storage/memory.js'

const RETENTION_SWEEP_MS = 60 * 60 * 1000 // hourly

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
}

export interface TandemServer {
  collabPort: number
  apiPort: number
  deps: ServerDeps
  registry: RoomRegistry
  close(): Promise<void>
}

/** Collab REST routes every server mounts; history routes register here too. */
export async function defaultRestRoutes(): Promise<RestRoutes> {
  return { ...ydocRoutes, ...historyRoutes }
}

export async function createServer(config: Config, opts: ServerOptions = {}): Promise<TandemServer> {
  const log = opts.log ?? createLogger(config.logLevel)
  const now = opts.now ?? Date.now
  const metrics = createMetrics()
  await mkdir(config.dataDir, { recursive: true })
  const keys = await loadKeyRing(config.dataDir, config.signingKeys)
  const db = new Level<string, unknown>(join(config.dataDir, 'db'), { valueEncoding: 'json' }) as RootDb
  try {
    await db.open()
  } catch (err) {
    throw new Error(`cannot open ${join(config.dataDir, 'db')}: is another tandem process using this data dir? (${(err as Error).message})`)
  }
  const store = config.docStorage === 'memory' ? new MemoryDocStore() : new LevelDocStore(db)

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
    unloadDelayMs: config.roomUnloadDelayMs,
  })

  let collabPort = 0
  const deps: ServerDeps = {
    config,
    log,
    metrics,
    db,
    keys,
    docs: registry,
    now,
    publicUrls: () => ({
      restUrl: config.publicRestUrl || `http://${hostForUrl(config.host)}:${collabPort}`,
      wsUrl: config.publicWsUrl || `ws://${hostForUrl(config.host)}:${collabPort}`,
    }),
  }

  try {
    const restRoutes = { ...(await defaultRestRoutes()), ...opts.restRoutes }
    collab = await startCollabListener({ config, keys, registry, store, metrics, log, now, restRoutes })
    transportRef.current = collab.transport
    collabPort = collab.port
    opts.onCollabListening?.(collabPort)
    if (opts.api !== false) {
      const { startApiListener } = await import('./api/server.js')
      api = await startApiListener(deps)
    }
  } catch (err) {
    collab?.stopListening()
    await registry.close()
    await db.close()
    throw err
  }

  // Retention: fold history older than the window and prune the log, for every stored document,
  // hourly (requests also do it for the documents they touch). One sweep at a time.
  let sweeping: Promise<unknown> | null = null
  const retention = setInterval(() => {
    if (sweeping) return
    sweeping = historyServiceOf({ store, config, now, log })
      .sweep()
      .catch((err) => log.error({ err }, 'history retention sweep failed'))
      .finally(() => (sweeping = null))
  }, RETENTION_SWEEP_MS)
  retention.unref()

  let closing: Promise<void> | undefined
  return {
    collabPort,
    apiPort: api?.port ?? 0,
    deps,
    registry,
    // Idempotent: stop accepting, flush every room, close sockets with 1001, close storage.
    close() {
      closing ??= (async () => {
        collab!.stopListening()
        clearInterval(retention)
        await sweeping
        await api?.close()
        await registry.close()
        collab!.closeAll(CLOSE.goingAway, 'server shutting down')
        await store.close()
        await db.close()
      })()
      return closing
    },
  }
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}
