// Restarting on the same ports: a `tandem serve` stopped with SIGTERM while clients are connected
// is replaced at once by a new process on the same ports; a port held by a socket that does not
// allow reuse is waited for (logged), not given up on; and no second process can share a port.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../src/auth/capability.js'
import { loadKeyRing } from '../src/auth/keys/ring.js'
import { loadConfig } from '../src/infra/config.js'
import { pino } from 'pino'
import { createServer, type TandemServer } from '../src/server.js'
import { eventually } from './helpers/tandem.js'
import { freePort, listensOn } from './helpers/ports.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tandem-restart-'))
})
afterAll(async () => rm(dir, { recursive: true, force: true }))

/**
 * A client connection whose local (ephemeral) port is returned: the socket is bound there without
 * SO_REUSEADDR, like a browser's connection, so no listener can bind that port while it lives.
 */
async function portHeldByClientSocket(): Promise<{ port: number; release(): Promise<void> }> {
  const accepted: net.Socket[] = []
  const helper = net.createServer((s) => {
    s.on('error', () => undefined)
    accepted.push(s)
  })
  helper.listen(0, '127.0.0.1')
  await new Promise((r) => helper.once('listening', r))
  const client = net.connect((helper.address() as net.AddressInfo).port, '127.0.0.1')
  client.on('error', () => undefined)
  await new Promise((r) => client.once('connect', r))
  return {
    port: client.localPort!,
    async release() {
      client.resetAndDestroy() // RST: no TIME_WAIT left on the port
      for (const s of accepted) s.destroy()
      await new Promise((r) => helper.close(r))
    },
  }
}

interface Serve {
  child: ChildProcess
  output: () => string
  listening: Promise<void>
  exited: Promise<number | null>
}

function serve(dataDir: string, collabPort: number, apiPort: number): Serve {
  const child = spawn(process.execPath, ['bin/tandem.js', 'serve', '--data-dir', dataDir, '--collab-port', String(collabPort), '--api-port', String(apiPort), '--log-level', 'warn'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  const listening = new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (out.includes('api listening')) {
        clearInterval(poll)
        resolve()
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
    const [collabPort, apiPort] = [await freePort(), await freePort()]
    const first = serve(dataDir, collabPort, apiPort)
    await first.listening
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
        await eventually(() => expect(docs.every((d) => d.getText('t').toString() === 'after before restart')).toBe(true), 20_000)
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
    const [collabPort, apiPort] = [await freePort(), await freePort()]
    const first = serve(dataDir, collabPort, apiPort)
    await first.listening
    const keys = await loadKeyRing(dataDir, '')
    const { token } = await mintToken(keys, { org: 'o', doc: 'd', sub: 'ann@example.com', acc: 'rw', ttlSec: 600 })
    const peers: net.Socket[] = []
    try {
      for (let i = 0; i < 5; i++) {
        // Upgrades, then never reads, answers or closes: its side stays open after the server's FIN.
        const c = net.connect({ host: '127.0.0.1', port: collabPort, allowHalfOpen: true })
        c.on('error', () => undefined)
        await new Promise((r) => c.once('connect', r))
        c.write(`GET /o/d?yauth=${token} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`)
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

  /**
   * A server started while a client socket holds its port: it logs and retries, and binds once the
   * socket is gone. The held port is the kernel's ephemeral choice (that is how the case arises), so
   * once released another test's connection may be given it before the retry (seen in CI): then the
   * port is busy again for everyone, which is checked, and the scenario runs again on a new port.
   */
  async function bindsOnceReleased(which: 'collab' | 'api', busyLine: RegExp): Promise<void> {
    for (let round = 1; ; round++) {
      const held = await portHeldByClientSocket()
      const lines: string[] = []
      const log = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) })
      const ports = which === 'collab' ? { collabPort: held.port, apiPort: 0 } : { collabPort: 0, apiPort: held.port }
      const config = loadConfig([], {}, { dataDir: join(dir, `held-${which}-${round}`), ...ports, logLevel: 'warn', listenRetrySec: 10 })
      let server: TandemServer | undefined
      const starting = createServer(config, { log }).then((s) => (server = s))
      try {
        await eventually(() => expect(lines.join('\n')).toMatch(busyLine))
        expect(server).toBeUndefined()
        await held.release()
        const err = await starting.then(() => null, (e: unknown) => e)
        if (err && round < 3 && !(await listensOn(held.port))) continue // taken again meanwhile, by someone else
        if (err) throw err
        expect(which === 'collab' ? server!.collabPort : server!.apiPort).toBe(held.port)
        if (which === 'collab') expect((await fetch(`http://127.0.0.1:${held.port}/healthz`)).status).toBe(200)
        expect(lines.join('\n')).toMatch(/listener bound after the port was busy/)
        return
      } finally {
        await held.release().catch(() => undefined)
        await starting.then((s) => s.close(), () => undefined)
      }
    }
  }

  it('waits (and logs) while a connection without SO_REUSEADDR holds the collab port, and binds once it is gone', async () => {
    await bindsOnceReleased('collab', /port busy.*retrying the bind/)
  }, 60_000)

  it('waits the same way for the api port', async () => {
    await bindsOnceReleased('api', /"listener":"api [^"]*".*port busy/)
  }, 60_000)

  it('refuses to share the collab port with another running server (no SO_REUSEPORT load-splitting)', async () => {
    // A fixed port: uWS sets its socket options only for a non-zero port.
    const a = await createServer(loadConfig([], {}, { dataDir: join(dir, 'a'), collabPort: await freePort(), apiPort: 0, logLevel: 'silent' }))
    try {
      const config = loadConfig([], {}, { dataDir: join(dir, 'b'), collabPort: a.collabPort, apiPort: 0, logLevel: 'silent', listenRetrySec: 0 })
      await expect(createServer(config)).rejects.toThrow(/collab listener could not bind/)
    } finally {
      await a.close()
    }
  })
})
