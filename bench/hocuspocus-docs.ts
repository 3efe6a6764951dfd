// Many documents over few Hocuspocus sockets, with the real @hocuspocus/provider:
// `node --import tsx bench/hocuspocus-docs.ts [--peers tandem-hp,hocuspocus] [--sockets 10] [--docs-per-socket 100]`.
// Per peer: a fresh server, then every provider attached at once; connect time is until every
// document has synced and its first edit is acknowledged (unsyncedChanges 0: durable on Tandem,
// applied in memory on a Hocuspocus without extensions); memory is the server's RSS growth per
// document, 2 s after the last one settled.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider'
import WebSocket from 'ws'
import * as Y from 'yjs'
import { list, num, parseFlags } from './lib/args.js'
import { startPeer, type PeerName } from './lib/peers.js'
import { memory } from './lib/proc.js'

const flags = parseFlags(process.argv.slice(2))
const peers = (list(flags, 'peers') ?? ['tandem-hp', 'hocuspocus']) as PeerName[]
const sockets = num(flags, 'sockets') ?? 10
const perSocket = num(flags, 'docs-per-socket') ?? 100

async function run(name: PeerName): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), `tandem-bench-hpdocs-${name}-`))
  const peer = await startPeer(name, { dataDir, persistent: true, cpus: null })
  try {
    await new Promise((r) => setTimeout(r, 1000))
    const before = memory(peer.pid).rss
    const targets = await Promise.all(
      Array.from({ length: sockets * perSocket }, (_, i) => peer.target('bench', `hp-${i}`, `user-${i}`)),
    )
    const providers: HocuspocusProvider[] = []
    const settled: Promise<void>[] = []
    const t0 = performance.now()
    for (let s = 0; s < sockets; s++) {
      const socket = new HocuspocusProviderWebsocket({ url: targets[0]!.url, WebSocketPolyfill: WebSocket })
      for (let j = 0; j < perSocket; j++) {
        const t = targets[s * perSocket + j]!
        const document = new Y.Doc()
        document.getText('t').insert(0, `${t.docName} `.repeat(10))
        const p = new HocuspocusProvider({ websocketProvider: socket, name: t.docName, token: t.token, document })
        settled.push(
          new Promise<void>((resolve) => {
            const check = (): void => {
              if (p.synced && p.unsyncedChanges === 0) resolve()
            }
            p.on('synced', check)
            p.on('unsyncedChanges', check)
          }),
        )
        p.attach()
        providers.push(p)
      }
    }
    await Promise.all(settled)
    const ms = performance.now() - t0
    await new Promise((r) => setTimeout(r, 2000))
    const perDoc = (memory(peer.pid).rss - before) / (sockets * perSocket)
    for (const p of providers) p.destroy()
    return `| ${name} | ${sockets * perSocket} over ${sockets} | ${ms.toFixed(0)} | ${(perDoc / 1024).toFixed(1)} |`
  } finally {
    await peer.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

console.log(
  '| peer | documents over sockets | connect ms (synced, first edit acknowledged) | server RSS KiB per document |',
)
console.log('|---|---:|---:|---:|')
for (const name of peers) console.log(await run(name))
process.exit(0)
