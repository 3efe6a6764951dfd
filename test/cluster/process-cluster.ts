// A cluster of real `tandem serve` processes for failure tests: one PostgreSQL, one redis-server,
// N nodes (each its own data dir, fixed ports so a restarted node comes back where HAProxy looks)
// behind HAProxy health-checking /readyz (a generated round-robin config, so one document's clients
// split over the nodes, or the shipped docs/cluster/haproxy.cfg with its document affinity), and
// y-websocket writers connected through HAProxy.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import type { KeyRing } from '../../src/auth/keys/ring.js'
import { createPgPool } from '../../src/pg/pool.js'
import { PgDocStore } from '../../src/storage/postgres/store.js'
import { startHaproxy, startShippedHaproxy, type Haproxy } from '../helpers/haproxy.js'
import { startPostgres, type PgServer } from '../helpers/postgres.js'
import { freePort, startRedis, type RedisServer } from '../helpers/redis.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'

export interface ProcessCluster {
  pg: PgServer
  redis: RedisServer
  lb: Haproxy
  /** the api frontend of the shipped config (null with the generated one, which has none) */
  apiLbUrl: string | null
  nodes: (TandemProcess | null)[]
  keys: KeyRing
  /** the JWKS file the nodes sign with (--signing-keys) */
  keysFile: string
  /** (re)starts node i on its ports */
  start(i: number): Promise<TandemProcess>
  stop(i: number, signal: NodeJS.Signals): Promise<void>
  token(doc: string): Promise<string>
  /** the document as PostgreSQL holds it */
  stored(docId: string): Promise<Y.Doc>
  close(): Promise<void>
}

export interface ProcessClusterOptions {
  /** 'shipped': docs/cluster/haproxy.cfg (three nodes) instead of the generated round robin */
  lb?: 'generated' | 'shipped'
}

export async function startProcessCluster(
  n = 3,
  env: NodeJS.ProcessEnv = {},
  o: ProcessClusterOptions = {},
): Promise<ProcessCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-cluster-'))
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()])
  const { file, keys } = await sharedSigningKeys(dir)
  const ports = await Promise.all(Array.from({ length: n }, async () => [await freePort(), await freePort()] as const))
  const baseEnv = {
    TANDEM_POSTGRES_URL: pg.url,
    TANDEM_REDIS_URL: redis.url,
    TANDEM_SIGNING_KEYS: file,
    TANDEM_LOG_LEVEL: 'warn',
    ...env,
  }
  const nodes: (TandemProcess | null)[] = Array.from({ length: n }, () => null)
  const start = async (i: number) => {
    const [collab, api] = ports[i]!
    const p = await spawnTandem(
      ['--data-dir', join(dir, `node${i}`), '--collab-port', String(collab), '--api-port', String(api)],
      baseEnv,
    )
    nodes[i] = p
    return p
  }
  await start(0) // the first migrates; the others then start together
  await Promise.all(Array.from({ length: n - 1 }, (_, i) => start(i + 1)))
  const shipped = o.lb === 'shipped' ? await startShippedHaproxy(ports) : null
  const lb = shipped ?? (await startHaproxy({ backends: ports.map(([c]) => c), check: '/readyz' }))
  // Until each node passed a check, one failed check would take it out of rotation for seconds.
  await lb.allChecked()
  const pool = createPgPool({ url: pg.url, schema: 'tandem', poolSize: 2 })
  const store = new PgDocStore(pool)
  return {
    pg,
    redis,
    lb,
    apiLbUrl: shipped?.apiUrl ?? null,
    nodes,
    keys,
    keysFile: file,
    start,
    async stop(i, signal) {
      await nodes[i]?.stop(signal)
      nodes[i] = null
    },
    async token(doc) {
      return (await mintToken(keys, { org: 'acme', doc, sub: 'writer@x', acc: 'rw', ttlSec: 3600 })).token
    },
    async stored(docId) {
      const state = await store.load(docId)
      const d = new Y.Doc()
      if (state.snapshot) Y.applyUpdate(d, state.snapshot.state)
      for (const u of state.updates) Y.applyUpdate(d, u.update)
      return d
    },
    async close() {
      for (const p of nodes) await p?.stop('SIGKILL')
      await lb.close()
      await pool.end()
      await redis.close()
      await pg.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** A stock provider connected through the load balancer, remembering the close codes it got. */
function lbProvider(
  c: ProcessCluster,
  doc: string,
  token: string,
  ydoc = new Y.Doc(),
): { p: WebsocketProvider; closes: number[] } {
  const p = new WebsocketProvider(`${c.lb.wsUrl}/acme`, doc, ydoc, {
    params: { yauth: token },
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    disableBc: true,
    maxBackoffTime: 500,
  })
  const closes: number[] = []
  p.on('connection-close', (e: { code: number } | null) => {
    if (e) closes.push(e.code)
  })
  return { p, closes }
}

/**
 * Writers each appending `<name>:<i>` to one Y.Array every `everyMs` until stopped. Everything a
 * writer ever wrote stays in its own document, so after the failures every item must be
 * everywhere: in every writer, and in PostgreSQL.
 */
export class Writers {
  readonly docs: Y.Doc[] = []
  readonly providers: { p: WebsocketProvider; closes: number[] }[] = []
  written = 0
  private timers: NodeJS.Timeout[] = []

  static async start(c: ProcessCluster, doc: string, count: number, everyMs: number): Promise<Writers> {
    const w = new Writers()
    const token = await c.token(doc)
    for (let k = 0; k < count; k++) {
      const d = new Y.Doc()
      w.docs.push(d)
      w.providers.push(lbProvider(c, doc, token, d))
      let i = 0
      w.timers.push(
        setInterval(() => {
          d.getArray<string>('items').push([`w${k}:${i++}`])
          w.written++
        }, everyMs),
      )
    }
    return w
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t)
    this.timers = []
  }

  /** every item any writer wrote */
  all(): Set<string> {
    const s = new Set<string>()
    for (const d of this.docs) for (const x of d.getArray<string>('items').toArray()) s.add(x)
    return s
  }

  destroy(): void {
    this.stop()
    for (const { p } of this.providers) p.destroy()
  }
}

/** Items writers received from other writers: the server broadcast them, so they were acknowledged. */
export function seenFromOthers(w: Writers): Set<string> {
  const s = new Set<string>()
  w.docs.forEach((d, k) => {
    for (const x of d.getArray<string>('items').toArray()) if (!x.startsWith(`w${k}:`)) s.add(x)
  })
  return s
}
