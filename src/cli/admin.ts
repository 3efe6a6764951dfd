// `tandem admin <noun> <verb> ... [--json]`. With --postgres-url the command runs in this process
// straight against PostgreSQL, which any number of processes share, whether servers run or not. On
// LevelDB (one process only): through a running server's loopback admin endpoint when there is one,
// otherwise this process opens the data dir's LevelDB itself.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Level } from 'level'
import { parseAdminArgs } from '../admin/args.js'
import { adminUsage, executeAdmin, type AdminResult } from '../admin/commands.js'
import { ADMIN_ENDPOINT_FILE, type AdminEndpointInfo } from '../admin/endpoint.js'
import { RoomRegistry } from '../collab/registry.js'
import { LoopTransport } from '../collab/transport.js'
import { openControlStore } from '../control/open.js'
import { watchAccessChanges } from '../control/token-revocations.js'
import { DatabaseRegistry, registryOptions } from '../databases/registry.js'
import type { RootDb } from '../deps.js'
import type { Config } from '../infra/config.js'
import { isAppError } from '../infra/errors.js'
import { createLogger } from '../infra/log.js'
import { createMetrics } from '../infra/metrics.js'
import { AssetLifecycle } from '../lifecycle/asset-lifecycle.js'
import { openPgPool } from '../pg/open.js'
import type { PgPool } from '../pg/pool.js'
import type { DocStore } from '../storage/doc-store.js'
import { LevelDocStore } from '../storage/leveldb/store.js'
import { openDocStore } from '../storage/open.js'
import { openVersionStore } from '../versions/open.js'

/** The LevelDB folder inside the data dir (as server.ts opens it). */
const DB_DIR = 'db'

/** A refusal from the server's endpoint, with its HTTP status. */
class Remote {
  constructor(
    readonly reason: string,
    readonly status = 400,
  ) {}
}

async function viaServer(dataDir: string, args: string[]): Promise<AdminResult | Remote | null> {
  let info: AdminEndpointInfo
  try {
    info = JSON.parse(await readFile(join(dataDir, ADMIN_ENDPOINT_FILE), 'utf8')) as AdminEndpointInfo
  } catch {
    return null
  }
  if (!/^http:\/\/127\.0\.0\.1:\d+\/admin$/.test(info.url)) return new Remote('admin endpoint file is not a loopback URL')
  let res: Response
  try {
    res = await fetch(info.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${info.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ args }),
      signal: AbortSignal.timeout(60_000),
    })
  } catch {
    return null // stale file: no server listens any more
  }
  // 401: the file names a server that is gone (its port now answers someone else): not ours to use.
  if (res.status === 401) return null
  const body = (await res.json()) as { ok: boolean; error?: string } & AdminResult
  if (!body.ok) return new Remote(body.error ?? `admin endpoint answered ${res.status}`, res.status)
  return body
}

/** Runs the command in this process: on the data dir's LevelDB, or on PostgreSQL with --postgres-url. */
async function locally(config: Config, args: string[]): Promise<AdminResult> {
  let db: RootDb | undefined
  let pg: PgPool | undefined
  if (config.postgresUrl) pg = await openPgPool(config, 'tandem-admin')
  else {
    db = new Level<string, unknown>(join(config.dataDir, DB_DIR), { valueEncoding: 'json' }) as RootDb
    try {
      await db.open()
    } catch (err) {
      throw new Error(`cannot open the data dir ${config.dataDir} (${(err as Error).message}); if a server runs on it, its admin endpoint is not reachable`)
    }
  }
  const metrics = createMetrics()
  let docStore: DocStore | undefined
  let docs: RoomRegistry | undefined
  const databases = new DatabaseRegistry(registryOptions(config, createLogger('silent')))
  const store = openControlStore(config, { db, pg })
  watchAccessChanges(store, Date.now)
  try {
    // Documents where the server keeps them: the database, else the data dir's LevelDB (an admin
    // process never uses --doc-storage memory: what it wrote would be lost on exit).
    docStore = pg ? (await openDocStore(config, undefined, pg)).store : new LevelDocStore(db!, { sync: config.fsync })
    docs = new RoomRegistry({
      store: docStore,
      transport: new LoopTransport(),
      log: createLogger('silent'),
      metrics,
      now: Date.now,
      maxDocBytes: config.maxDocBytes,
      compactThreshold: config.compactThreshold,
      maxBackpressureBytes: config.maxBackpressureBytes,
      unloadDelayMs: 0,
    })
    const versions = await openVersionStore(pg ? 'postgres' : 'leveldb', config, db, pg ?? null)
    const lifecycle = new AssetLifecycle({ control: store, docs: docStore, versions, rooms: docs, databases: async () => databases, now: Date.now })
    return await executeAdmin({ store, now: Date.now, docs, databases, lifecycle, webhookAllowPrivate: config.webhookAllowPrivate }, parseAdminArgs(args))
  } finally {
    await databases.close()
    await docs?.close()
    await docStore?.close()
    await db?.close()
    await pg?.end()
    metrics.registry.clear()
  }
}

function render(value: unknown): string {
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' && v !== null ? Object.entries(v).map(([k, x]) => `${k}=${typeof x === 'object' ? JSON.stringify(x) : String(x)}`).join('  ') : String(v))).join('\n')
  if (typeof value === 'object' && value !== null) return Object.entries(value).map(([k, x]) => `${k}: ${typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x)}`).join('\n')
  return String(value)
}

export async function runAdmin(args: string[], config: Config, out: (s: string) => void = (s) => process.stdout.write(s + '\n')): Promise<number> {
  const err = (s: string) => process.stderr.write(`tandem admin: ${s}\n`)
  let json = false
  try {
    json = parseAdminArgs(args).json
    const remote = config.postgresUrl ? null : await viaServer(config.dataDir, args)
    if (remote instanceof Remote) {
      err(remote.reason)
      return remote.status === 400 ? 2 : 1
    }
    const result = remote ?? (await locally(config, args))
    out(json ? JSON.stringify(result.result, null, 2) : (result.text ?? render(result.result)))
    return 0
  } catch (e) {
    err(isAppError(e) || e instanceof Error ? e.message : String(e))
    if (!json && isAppError(e) && e.message.startsWith('expected:')) err(`commands:\n${adminUsage()}`)
    return isAppError(e) && e.status === 400 ? 2 : 1
  }
}
