// Starts a real Tandem server on port 0 over a temp data dir, mints tokens for it, and connects
// stock y-websocket providers (Node, with `ws` as the WebSocket implementation).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken, type Access } from '../../src/auth/capability.js'
import { loadConfig, type Config } from '../../src/infra/config.js'
import { createServer, type ServerOptions, type TandemServer } from '../../src/compose/server.js'

export interface Harness {
  server: TandemServer
  config: Config
  dataDir: string
  httpUrl: string
  wsUrl: string
  token(
    org: string,
    doc: string,
    opts?: { acc?: Access; sub?: string; ttlSec?: number; branch?: string },
  ): Promise<string>
  provider(org: string, doc: string, token: string, ydoc?: Y.Doc): WebsocketProvider
  restart(): Promise<void>
  close(): Promise<void>
}

/**
 * The collab transport the suites run on: `TANDEM_TEST_TRANSPORT=ws` (or uws, auto) runs them
 * against that transport unchanged (.ci/run runs the socket suites on both); unset, the default.
 */
export function testTransport(): Partial<Pick<Config, 'transport'>> {
  const t = process.env.TANDEM_TEST_TRANSPORT
  if (!t) return {}
  if (t !== 'auto' && t !== 'uws' && t !== 'ws')
    throw new Error(`TANDEM_TEST_TRANSPORT: expected auto, uws or ws, got ${JSON.stringify(t)}`)
  return { transport: t }
}

/** The same as flags, for a spawned `tandem serve`. */
export const transportArgs = (): string[] => {
  const t = testTransport().transport
  return t ? ['--transport', t] : []
}

export async function startTandem(
  overrides: Partial<Config> = {},
  opts: ServerOptions = {},
  dataDir?: string,
): Promise<Harness> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'tandem-test-')))
  // Search is off unless a suite turns it on: its embedded engine's first open (PGlite initdb) takes
  // ~10 s of a core on this machine, which every other suite's servers would pay for nothing.
  const config = loadConfig(
    [],
    {},
    {
      dataDir: dir,
      collabPort: 0,
      apiPort: 0,
      logLevel: 'silent',
      roomUnloadDelayMs: 200,
      searchIndex: 'off',
      ...testTransport(),
      ...overrides,
    },
  )
  const providers: WebsocketProvider[] = []
  const h: Harness = {
    server: await createServer(config, opts),
    config,
    dataDir: dir,
    get httpUrl() {
      return `http://127.0.0.1:${h.server.collabPort}`
    },
    get wsUrl() {
      return `ws://127.0.0.1:${h.server.collabPort}`
    },
    async token(org, doc, t = {}) {
      const { token } = await mintToken(h.server.deps.keys, {
        org,
        doc,
        sub: t.sub ?? 'ann@example.com',
        acc: t.acc ?? 'rw',
        ttlSec: t.ttlSec ?? 600,
        ...(t.branch ? { branch: t.branch } : {}),
      })
      return token
    },
    provider(org, doc, token, ydoc = new Y.Doc()) {
      const p = new WebsocketProvider(`${h.wsUrl}/${org}`, doc, ydoc, {
        params: { yauth: token },
        WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
        disableBc: true,
      })
      providers.push(p)
      return p
    },
    async restart() {
      for (const p of providers.splice(0)) p.destroy()
      await h.server.close()
      h.server = await createServer(config, opts)
    },
    async close() {
      for (const p of providers.splice(0)) p.destroy()
      await h.server.close()
      if (!dataDir) await rm(dir, { recursive: true, force: true })
    },
  }
  return h
}

/** Polls until `check` passes (or throws its last error after `ms`). */
export async function eventually(check: () => void | Promise<void>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      await check()
      return
    } catch (err) {
      if (Date.now() > deadline) throw err
      await new Promise((r) => setTimeout(r, 20))
    }
  }
}

export const synced = (p: WebsocketProvider) =>
  new Promise<void>((resolve) => {
    if (p.synced) resolve()
    else p.once('sync', (s: boolean) => s && resolve())
  })
