// A server first started with `--collab-port 0` and restarted on the port it was given, with peers
// that left their connections half-open (a browser in CLOSE-WAIT). uWS binds a port-0 listener
// without SO_REUSEADDR and the connections it accepts inherit that, so their orphaned FIN-WAIT-2
// ends kept the port from a new bind for tcp_fin_timeout (60 s). The restart must bind at once.
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/auth/capability.js'
import { loadKeyRing } from '../../src/auth/keys/ring.js'
import { spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tandem-restart-port-zero-'))
})
afterAll(async () => rm(dir, { recursive: true, force: true }))

/** Upgrades, then never reads, answers or closes: after the server's FIN its end stays in FIN-WAIT-2. */
async function halfOpenPeer(port: number, token: string): Promise<net.Socket> {
  const c = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true })
  c.on('error', () => undefined)
  await new Promise((r) => c.once('connect', r))
  c.write(
    `GET /o/d?yauth=${token} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  )
  await new Promise((r) => c.once('data', r))
  c.pause()
  return c
}

describe('restart on the port a port-0 start was given', () => {
  it('binds at once although half-open peers of the first process still hold connections on the port', async () => {
    const dataDir = join(dir, 'zero')
    const first = await spawnTandem(['--data-dir', dataDir, '--log-level', 'warn'])
    const peers: net.Socket[] = []
    let second: TandemProcess | undefined
    try {
      const port = first.collabPort
      const keys = await loadKeyRing(dataDir, '')
      const { token } = await mintToken(keys, { org: 'o', doc: 'd', sub: 'ann@example.com', acc: 'rw', ttlSec: 600 })
      for (let i = 0; i < 4; i++) peers.push(await halfOpenPeer(port, token))
      await first.stop('SIGTERM')
      expect(first.child.exitCode).toBe(0)
      // No retrying: a port the old connections still held would fail this start outright.
      second = await spawnTandem([
        '--data-dir',
        dataDir,
        '--log-level',
        'warn',
        '--collab-port',
        String(port),
        '--listen-retry-sec',
        '0',
      ])
      expect(second.collabPort).toBe(port)
      expect(second.output()).not.toMatch(/could not bind|port busy/)
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200)
    } finally {
      for (const c of peers) c.destroy()
      await first.stop('SIGKILL')
      await second?.stop()
    }
  }, 60_000)
})
