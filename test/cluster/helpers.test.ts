// The cluster test helpers work: a real redis-server that can be stopped, killed and restarted, and
// a real HAProxy that carries WebSockets to several backends and drops a dead one from rotation.
import { execFile } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import { promisify } from 'node:util'
import { createClient } from '@redis/client'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import { HAPROXY_BIN, startHaproxy, type Haproxy } from '../helpers/haproxy.js'
import { startRedis, type RedisServer } from '../helpers/redis.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined)
})

async function ping(url: string): Promise<string> {
  const c = createClient({ url, socket: { reconnectStrategy: false } })
  c.on('error', () => undefined)
  await c.connect()
  try {
    return await c.ping()
  } finally {
    c.destroy()
  }
}

describe('test/helpers/redis', () => {
  it('starts a throwaway server without persistence: a restart forgets every key', async () => {
    const r: RedisServer = await startRedis()
    cleanups.push(() => r.close())
    expect(await ping(r.url)).toBe('PONG')
    const c = createClient({ url: r.url })
    c.on('error', () => undefined)
    await c.connect()
    await c.set('k', 'v')
    c.destroy()
    await r.kill()
    expect(r.running).toBe(false)
    await expect(ping(r.url)).rejects.toThrow()
    await r.start()
    const c2 = createClient({ url: r.url })
    await c2.connect()
    expect(await c2.get('k')).toBeNull()
    c2.destroy()
  })

  it('with persist, writes survive a SIGKILL', async () => {
    const r = await startRedis({ persist: true })
    cleanups.push(() => r.close())
    const c = createClient({ url: r.url })
    await c.connect()
    await c.set('k', 'v')
    c.destroy()
    await r.kill()
    await r.start()
    const c2 = createClient({ url: r.url })
    await c2.connect()
    expect(await c2.get('k')).toBe('v')
    c2.destroy()
  })
})

/** A backend: answers /readyz 200 and greets every WebSocket with its name. */
async function backend(name: string): Promise<{ port: number; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    res.writeHead(req.url === '/readyz' ? 200 : 404).end(name)
  })
  const wss = new WebSocketServer({ server })
  wss.on('connection', (ws) => {
    ws.send(name)
    ws.on('message', (m) => ws.send(`${name}:${String(m)}`))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    port: (server.address() as { port: number }).port,
    server,
    close: () =>
      new Promise<void>((r) => {
        for (const c of wss.clients) c.terminate()
        wss.close()
        server.close(() => r())
      }),
  }
}

function greeting(url: string): Promise<{ ws: WebSocket; name: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.once('message', (m) => resolve({ ws, name: String(m) }))
    ws.once('error', reject)
  })
}

describe('test/helpers/haproxy', () => {
  it('carries WebSockets to every backend and takes a dead backend out of rotation', async () => {
    const a = await backend('a')
    const b = await backend('b')
    cleanups.push(
      () => a.close(),
      () => b.close(),
    )
    const lb: Haproxy = await startHaproxy({ backends: [a.port, b.port], check: '/readyz' })
    cleanups.push(() => lb.close())
    expect(lb.config).toContain('timeout tunnel')

    const names = new Set<string>()
    for (let i = 0; i < 4; i++) {
      const { ws, name } = await greeting(lb.wsUrl + '/room')
      names.add(name)
      // The upgraded connection is a real tunnel both ways.
      const echo = await new Promise<string>((r) => {
        ws.once('message', (m) => r(String(m)))
        ws.send('hi')
      })
      expect(echo).toBe(`${name}:hi`)
      ws.close()
    }
    expect([...names].sort()).toEqual(['a', 'b'])

    await a.close()
    // Health checks run every 500 ms; retries + redispatch cover the window before it notices.
    await new Promise((r) => setTimeout(r, 1500))
    for (let i = 0; i < 4; i++) {
      const { ws, name } = await greeting(lb.wsUrl + '/room')
      expect(name).toBe('b')
      ws.close()
    }
  })
})

describe('docs/cluster sample configuration', () => {
  it('the HAProxy configurations of docs/cluster.md pass haproxy -c', async () => {
    for (const file of ['docs/cluster/haproxy.cfg', 'docs/cluster/haproxy-compose.cfg']) {
      // The compose one names servers by service name: unresolvable here, which haproxy warns about.
      const { stdout } = await promisify(execFile)(HAPROXY_BIN, ['-c', '-f', file])
      expect(stdout).toContain('Configuration file is valid')
    }
  })
})
