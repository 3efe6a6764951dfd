// `tandem admin <noun> <verb> ... [--json]`. With --postgres-url the command runs in this process
// straight against PostgreSQL, which any number of processes share, whether servers run or not. On
// LevelDB (one process only): through a running server's loopback admin endpoint when there is one,
// otherwise this process opens the data dir's LevelDB itself.
import { readFile } from 'node:fs/promises'
import { parseAdminArgs } from '../admin/args.js'
import { adminUsage, executeAdmin, type AdminResult } from '../admin/commands.js'
import type { AdminEndpointInfo } from '../admin/endpoint.js'
import { openBackend } from '../compose/backend.js'
import { RoomRegistry, roomSettings } from '../collab/registry.js'
import { LoopTransport } from '../collab/transport.js'
import { watchAccessChanges } from '../control/token-revocations.js'
import { DatabaseRegistry, registryOptions } from '../database-assets/registry.js'
import type { Config } from '../infra/config.js'
import { dataDirPath } from '../infra/data-dir.js'
import { isAppError } from '../infra/errors.js'
import { createLogger } from '../infra/log.js'
import { createMetrics } from '../infra/metrics.js'
import { AssetLifecycle } from '../lifecycle/asset-lifecycle.js'

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
    info = JSON.parse(await readFile(dataDirPath(dataDir, 'adminEndpoint'), 'utf8')) as AdminEndpointInfo
  } catch {
    return null
  }
  if (!/^http:\/\/127\.0\.0\.1:\d+\/admin$/.test(info.url))
    return new Remote('admin endpoint file is not a loopback URL')
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
  // Documents where the server keeps them: an admin process never uses --doc-storage memory (what
  // it wrote would be lost on exit).
  const backend = await openBackend(
    { ...config, docStorage: 'leveldb' },
    {
      applicationName: 'tandem-admin',
      hint: `if a server runs on ${config.dataDir}, its admin endpoint is not reachable`,
    },
  )
  const metrics = createMetrics()
  const databases = new DatabaseRegistry(registryOptions(config, createLogger('silent')))
  const store = backend.control
  watchAccessChanges(store, Date.now)
  const rooms = new RoomRegistry({
    store: backend.docs,
    transport: new LoopTransport(),
    log: createLogger('silent'),
    metrics,
    now: Date.now,
    ...roomSettings(config),
    unloadDelayMs: 0, // a one-off process: nothing to keep loaded
  })
  const docs = rooms.docs
  // `search rebuild` with no server: the index opened here (other commands leave it to the next
  // server start, which indexes assets created and drops those deleted meanwhile)
  const search =
    config.searchIndex === 'on' && args[0] === 'search'
      ? await (
          await import('../search/open.js')
        ).startSearch(
          { config, pg: backend.pg, control: store, docs, store: backend.docs, log: createLogger('silent') },
          rooms.committer,
        )
      : undefined
  try {
    const lifecycle = new AssetLifecycle({
      control: store,
      docs: backend.docs,
      versions: backend.versions,
      rooms,
      databases: async () => databases,
      now: Date.now,
    })
    return await executeAdmin(
      {
        store,
        now: Date.now,
        docs,
        databases,
        lifecycle,
        webhookAllowPrivate: config.webhookAllowPrivate,
        ...(search ? { search: search.search } : {}),
      },
      parseAdminArgs(args),
    )
  } finally {
    await search?.close(false)
    await databases.close()
    await rooms.close()
    await backend.close()
    metrics.registry.clear()
  }
}

function render(value: unknown): string {
  if (Array.isArray(value))
    return value
      .map((v) =>
        typeof v === 'object' && v !== null
          ? Object.entries(v)
              .map(([k, x]) => `${k}=${typeof x === 'object' ? JSON.stringify(x) : String(x)}`)
              .join('  ')
          : String(v),
      )
      .join('\n')
  if (typeof value === 'object' && value !== null)
    return Object.entries(value)
      .map(([k, x]) => `${k}: ${typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x)}`)
      .join('\n')
  return String(value)
}

export async function runAdmin(
  args: string[],
  config: Config,
  out: (s: string) => void = (s) => process.stdout.write(s + '\n'),
): Promise<number> {
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
