// Reproduces the abrupt server-side closes (1006, no close frame) seen in the bench: starts Tandem,
// opens N sockets one at a time, sends nothing, and reports any socket the server shut down.
// `node --import tsx bench/repro-1006.ts [N] [one-room|new-rooms]`; exits 1 when some were closed.
// one-room (the default): every socket joins the same, already loaded room. new-rooms: every socket
// is its room's first visitor, so each upgrade comes before that room is loaded.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { buildTandem, startPeer } from './lib/peers.js'

const n = Number(process.argv[2] ?? 50)
const mode = process.argv[3] ?? 'one-room'
if (mode !== 'one-room' && mode !== 'new-rooms') throw new Error(`mode is one-room or new-rooms, not ${mode}`)
const dataDir = mkdtempSync(join(tmpdir(), 'tandem-repro-1006-'))
const peer = await startPeer('tandem', {
  dataDir,
  persistent: true,
  cpus: null,
  tandemEntry: await buildTandem(() => {}),
})
const closed: string[] = []
let shuttingDown = false
const sockets: WebSocket[] = []
try {
  for (let i = 0; i < n; i++) {
    const t = await peer.target('repro', mode === 'one-room' ? 'doc' : `doc-${i}`, `u${i}`)
    const ws = new WebSocket(t.url, { perMessageDeflate: false })
    sockets.push(ws)
    let messages = 0
    ws.on('message', () => messages++)
    ws.on('close', (code) => {
      if (!shuttingDown) closed.push(`socket ${i}: closed ${code} after ${messages} message(s)`)
    })
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
  }
  await new Promise((r) => setTimeout(r, 1000))
  const metrics = await (await fetch(`http://127.0.0.1:${peer.port}/metrics`)).text()
  console.log(
    metrics
      .split('\n')
      .filter((l) => l.startsWith('tandem_ws_closes_total'))
      .join('\n') || 'no server-side closes',
  )
} finally {
  shuttingDown = true
  for (const ws of sockets) ws.terminate()
  await peer.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
console.log(closed.length ? closed.join('\n') : `all ${n} sockets (${mode}) stayed open`)
process.exit(closed.length ? 1 : 0)
