// The WebSocket part of scripts/docker-check.sh: writes a marker into a document of a running server
// through the SDK's live document, or reads it back after a restart.
//
//   node --import tsx --conditions tandem-source scripts/docker-edit.ts write|read \
//     --api URL --key KEY --asset ID --text TEXT
//
// `write` returns once a second socket on the same document saw the edit: the server broadcasts an
// update only after it is durable, so the edit is on disk before the container is stopped. `read`
// exits 1 when the synced document lacks the marker. Both exit 1 after 30 s without an answer.
import { parseArgs } from 'node:util'
import WebSocket from 'ws'
import { TandemClient, type LiveDocument } from '@tandem/client'

const MARK = 'docker-check'
const TIMEOUT_MS = 30_000

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { api: { type: 'string' }, key: { type: 'string' }, asset: { type: 'string' }, text: { type: 'string' } },
})
const mode = positionals[0]
const { api, key, asset, text } = values
if ((mode !== 'write' && mode !== 'read') || !api || !key || !asset || !text) {
  process.stderr.write('usage: docker-edit.ts write|read --api URL --key KEY --asset ID --text TEXT\n')
  process.exit(2)
}

const tandem = new TandemClient({ baseUrl: api, apiKey: key })
const open = (access: 'view' | 'edit') =>
  tandem.openDocument(asset, { access, WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket })
const docs: LiveDocument[] = []
const timer = setTimeout(() => {
  process.stderr.write(`docker-edit ${mode}: no answer within ${TIMEOUT_MS / 1000} s\n`)
  process.exit(1)
}, TIMEOUT_MS)

try {
  if (mode === 'write') {
    const writer = await open('edit')
    const watcher = await open('view')
    docs.push(writer, watcher)
    await Promise.all([writer.whenSynced(), watcher.whenSynced()])
    const seen = new Promise<void>((resolve) => {
      const check = () => watcher.doc.getText(MARK).toString() === text && resolve()
      watcher.doc.on('update', check)
      check()
    })
    writer.doc.getText(MARK).insert(0, text)
    await seen
    process.stdout.write(`wrote ${JSON.stringify(text)} into ${asset}, seen by a second socket\n`)
  } else {
    const reader = await open('view')
    docs.push(reader)
    await reader.whenSynced()
    const found = reader.doc.getText(MARK).toString()
    if (found !== text) {
      process.stderr.write(
        `docker-edit read: ${asset} holds ${JSON.stringify(found)}, expected ${JSON.stringify(text)}\n`,
      )
      process.exitCode = 1
    } else process.stdout.write(`read ${JSON.stringify(text)} back from ${asset}\n`)
  }
} finally {
  for (const d of docs) d.destroy()
  clearTimeout(timer)
}
