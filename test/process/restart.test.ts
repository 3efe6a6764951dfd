// Restarting on the same ports: a `tandem serve` stopped with SIGTERM while clients are connected
// is replaced at once by a new process on the same ports; a port held by a socket that does not
// allow reuse is waited for (logged), not given up on; and no second process can share a port.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type uWS from 'uWebSockets.js'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/auth/capability.js'
import { loadKeyRing } from '../../src/auth/keys/ring.js'
import { loadUws } from '../../src/collab/listener/uws-build.js'
import type { UwsModule } from '../../src/collab/uws/app.js'
import { loadConfig } from '../../src/infra/config.js'
import { pino } from 'pino'
import { createServer, type TandemServer } from '../../src/compose/server.js'
import { eventually, testTransport, transportArgs } from '../helpers/tandem.js'
import { listensOn } from '../helpers/ports.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tandem-restart-'))
})
afterAll(async () => rm(dir, { recursive: true, force: true }))

/**
 * A port held by a connection without SO_REUSEADDR, so no listener can bind it while it lives: the
 * accepted end of a WebSocket to a uWS listener on port 0 (uWS binds port 0 bare, and accepted
 * sockets inherit that), the listener closed again. Not a client socket's own port: Linux gives
 * outgoing connections even ports, and lets another connection to another address share one, so
 * another test's connection could hold it past the release (seen in CI: "could not bind"). A port
 * the kernel picked for a bind is odd, and no connection shares it while the bind owns it.
 */
async function portHeldByConnection(uWS: UwsModule): Promise<{ port: number; release(): Promise<void> }> {
  let closed!: () => void
  const gone = new Promise<void>((r) => (closed = r))
  // idleTimeout 0: uWS never closes it itself (that close would leave the port in TIME_WAIT)
  const app = uWS.App().ws('/*', { idleTimeout: 0, close: () => closed() })
  const listener = await new Promise<uWS.us_listen_socket | false>((r) => app.listen('127.0.0.1', 0, r))
  if (!listener) throw new Error('uWS could not listen on port 0')
  const port = uWS.us_socket_local_port(listener as unknown as uWS.us_socket)
  const client = net.connect(port, '127.0.0.1')
  client.on('error', () => undefined)
  await new Promise((r) => client.once('connect', r))
  client.write(
    `GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  )
  await new Promise((r) => client.once('data', r))
  uWS.us_listen_socket_close(listener)
  return {
    port,
    async release() {
      client.resetAndDestroy() // RST: the accepted end closes at once, no TIME_WAIT on the port
      await gone
    },
  }
}

interface Serve {
  child: ChildProcess
  output: () => string
  /** the ports bound (the ones asked for, or those port 0 was given) */
  listening: Promise<{ collabPort: number; apiPort: number }>
  exited: Promise<number | null>
}

/** Port 0 for a first start: a port probed free and bound later could be taken in between. */
function serve(dataDir: string, collabPort = 0, apiPort = 0): Serve {
  const child = spawn(
    process.execPath,
    [
      'bin/tandem.js',
      'serve',
      '--data-dir',
      dataDir,
      '--collab-port',
      String(collabPort),
      '--api-port',
      String(apiPort),
      '--log-level',
      'warn',
      ...transportArgs(),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  const listening = new Promise<{ collabPort: number; apiPort: number }>((resolve, reject) => {
    const poll = setInterval(() => {
      const [collab, api] = [
        /collab listening on http:\/\/[^:]+:(\d+)/.exec(out),
        /api listening on http:\/\/[^:]+:(\d+)/.exec(out),
      ]
      if (collab && api) {
        clearInterval(poll)
        resolve({ collabPort: Number(collab[1]), apiPort: Number(api[1]) })
      }
    }, 10)
    void exited.then((code) => {
      clearInterval(poll)
      reject(new Error(`tandem serve exited (${code}) before listening:\n${out}`))
    })
  })
  return { child, output: () => out, listening, exited }
}

function connectProvider(url: string, token: string, ydoc: Y.Doc): WebsocketProvider {
  return new WebsocketProvider(url, 'd', ydoc, {
    params: { yauth: token },
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    disableBc: true,
    maxBackoffTime: 200,
  })
}

describe('restart on the same ports', () => {
  it('a SIGTERM with 20 connected editors is followed at once by a new process that binds both ports and serves them', async () => {
    const dataDir = join(dir, 'serve')
    const first = serve(dataDir)
    const { collabPort, apiPort } = await first.listening
    const keys = await loadKeyRing(dataDir, '')
    const { token } = await mintToken(keys, { org: 'o', doc: 'd', sub: 'ann@example.com', acc: 'rw', ttlSec: 600 })
    const url = `ws://127.0.0.1:${collabPort}/o`
    const docs = Array.from({ length: 20 }, () => new Y.Doc())
    const providers = docs.map((d) => connectProvider(url, token, d))
    try {
      await eventually(() => expect(providers.every((p) => p.synced)).toBe(true), 20_000)
      docs[0]!.getText('t').insert(0, 'before restart')
      await eventually(() => expect(docs.every((d) => d.getText('t').toString() === 'before restart')).toBe(true))
      // An API keep-alive connection too.
      const api = await fetch(`http://127.0.0.1:${apiPort}/healthz`).catch(() => null)
      expect(api).not.toBeNull()

      first.child.kill('SIGTERM')
      expect(await first.exited).toBe(0)
      // The providers keep reconnecting (every 200 ms at most) while the new process starts.
      const second = serve(dataDir, collabPort, apiPort)
      try {
        await second.listening
        expect(second.output()).not.toMatch(/could not bind|EADDRINUSE|port busy/)
        docs[1]!.getText('t').insert(0, 'after ')
        await eventually(
          () => expect(docs.every((d) => d.getText('t').toString() === 'after before restart')).toBe(true),
          20_000,
        )
        const health = await fetch(`http://127.0.0.1:${apiPort}/healthz`)
        expect(health.status).toBeLessThan(500)
      } finally {
        for (const p of providers) p.destroy()
        second.child.kill('SIGTERM')
        await second.exited
      }
    } finally {
      for (const p of providers) p.destroy()
      first.child.kill('SIGKILL')
    }
  }, 60_000)

  it('a SIGTERM exits promptly even when connected peers never answer the close frame', async () => {
    const dataDir = join(dir, 'half-open')
    const first = serve(dataDir)
    const { collabPort } = await first.listening
    const keys = await loadKeyRing(dataDir, '')
    const { token } = await mintToken(keys, { org: 'o', doc: 'd', sub: 'ann@example.com', acc: 'rw', ttlSec: 600 })
    const peers: net.Socket[] = []
    try {
      for (let i = 0; i < 5; i++) {
        // Upgrades, then never reads, answers or closes: its side stays open after the server's FIN.
        const c = net.connect({ host: '127.0.0.1', port: collabPort, allowHalfOpen: true })
        c.on('error', () => undefined)
        await new Promise((r) => c.once('connect', r))
        c.write(
          `GET /o/d?yauth=${token} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        )
        await new Promise((r) => c.once('data', r))
        peers.push(c)
      }
      first.child.kill('SIGTERM')
      // uWS alone keeps such sockets (and the process) ~14 s; a restart waiting for the exit would too.
      const code = await Promise.race([first.exited, new Promise((r) => setTimeout(() => r('still running'), 8_000))])
      expect(code).toBe(0)
    } finally {
      for (const c of peers) c.destroy()
      first.child.kill('SIGKILL')
    }
  }, 30_000)

  /** A server started while a connection holds its port: it logs and retries, and binds once the connection is gone. */
  async function bindsOnceReleased(which: 'collab' | 'api', busyLine: RegExp): Promise<void> {
    const held = await portHeldByConnection(native!)
    const lines: string[] = []
    const log = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) })
    const ports = which === 'collab' ? { collabPort: held.port, apiPort: 0 } : { collabPort: 0, apiPort: held.port }
    const config = loadConfig(
      [],
      {},
      { dataDir: join(dir, `held-${which}`), ...ports, logLevel: 'warn', listenRetrySec: 30, ...testTransport() },
    )
    let server: TandemServer | undefined
    let starting: Promise<TandemServer> | undefined
    try {
      expect(await listensOn(held.port)).toBe(false) // the connection alone keeps a listener off the port
      starting = createServer(config, { log }).then((s) => (server = s))
      await eventually(() => expect(lines.join('\n')).toMatch(busyLine))
      expect(server).toBeUndefined()
      await held.release()
      await starting
      expect(which === 'collab' ? server!.collabPort : server!.apiPort).toBe(held.port)
      if (which === 'collab') expect((await fetch(`http://127.0.0.1:${held.port}/healthz`)).status).toBe(200)
      expect(lines.join('\n')).toMatch(/listener bound after the port was busy/)
    } finally {
      await held.release()
      await starting?.then(
        (s) => s.close(),
        () => undefined,
      )
    }
  }

  // The fixture is uWS's (Node's own sockets all set SO_REUSEADDR), the server under test either
  // transport: where no uWS binary loads (Node 22 and 24 off glibc 2.38) these two do not run.
  const uws = loadUws()
  const native = 'native' in uws ? uws.native : null
  it.runIf(native)(
    'waits (and logs) while a connection without SO_REUSEADDR holds the collab port, and binds once it is gone (fixture: uWS)',
    async () => {
      await bindsOnceReleased('collab', /port busy.*retrying the bind/)
    },
    60_000,
  )

  it.runIf(native)(
    'waits the same way for the api port (fixture: uWS)',
    async () => {
      await bindsOnceReleased('api', /"listener":"api [^"]*".*port busy/)
    },
    60_000,
  )

  it('refuses to share the collab port with another running server (no SO_REUSEPORT load-splitting)', async () => {
    // Port 0 too is bound by number with the exclusive option (src/collab/uws/listen.ts).
    const a = await createServer(
      loadConfig(
        [],
        {},
        { dataDir: join(dir, 'a'), collabPort: 0, apiPort: 0, logLevel: 'silent', ...testTransport() },
      ),
    )
    try {
      const config = loadConfig(
        [],
        {},
        {
          dataDir: join(dir, 'b'),
          collabPort: a.collabPort,
          apiPort: 0,
          logLevel: 'silent',
          listenRetrySec: 0,
          ...testTransport(),
        },
      )
      await expect(createServer(config)).rejects.toThrow(/collab listener could not bind/)
    } finally {
      await a.close()
    }
  })
})
