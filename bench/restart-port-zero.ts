// A restart on the port a `--collab-port 0` start was given, with half-open peers left behind
// (upgraded clients that never answer the close frame, as a browser in CLOSE-WAIT): how long the new
// process takes to bind, and what the kernel shows on that port meanwhile.
// `node --import tsx bench/restart-port-zero.ts [peers] [zero|fixed]` (fixed: the first start names
// a free port itself, for comparison).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mintToken } from '../src/auth/capability.js'
import { loadKeyRing } from '../src/auth/keys/ring.js'
import { freePort } from '../test/helpers/ports.js'
import { spawnTandem } from '../test/helpers/tandem-process.js'

const peers = Number(process.argv[2] ?? 4)
const mode = process.argv[3] ?? 'zero'
const dataDir = mkdtempSync(join(tmpdir(), 'tandem-restart-port-zero-'))

const serve = (collabPort: number) =>
  spawnTandem(['--data-dir', dataDir, '--log-level', 'warn', '--collab-port', String(collabPort)])
const first = await serve(mode === 'zero' ? 0 : await freePort())
const port = first.collabPort
const keys = await loadKeyRing(dataDir, '')
const { token } = await mintToken(keys, { org: 'o', doc: 'd', sub: 'ann@example.com', acc: 'rw', ttlSec: 600 })
const held: net.Socket[] = []
for (let i = 0; i < peers; i++) {
  const c = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true })
  c.on('error', () => undefined)
  await new Promise((r) => c.once('connect', r))
  c.write(
    `GET /o/d?yauth=${token} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  )
  await new Promise((r) => c.once('data', r))
  c.pause() // never reads, answers or closes
  held.push(c)
}
await first.stop('SIGTERM')
console.log(`first start (${mode}) on port ${port}, ${peers} half-open peers; after its exit:`)
console.log(
  execFileSync('ss', ['-tan', `sport = :${port}`])
    .toString()
    .trimEnd(),
)
const started = performance.now()
const second = await serve(port)
console.log(`restarted on port ${port} in ${Math.round(performance.now() - started)} ms (until both listeners accept)`)
await second.stop()
for (const c of held) c.destroy()
rmSync(dataDir, { recursive: true, force: true })
