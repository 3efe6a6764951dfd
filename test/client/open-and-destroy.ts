// A Node program as an app would write it (spawned by exit.test.ts): opens a document with the SDK,
// makes an edit, destroys the document, and does nothing else. It must then exit by itself: nothing
// openDocument made may keep the event loop alive.
import WebSocket from 'ws'
import { TandemClient } from '@tandem/client'

const tandem = new TandemClient({ baseUrl: process.env.TANDEM_API_URL!, apiKey: process.env.TANDEM_API_KEY! })
const live = await tandem.openDocument(process.env.TANDEM_ASSET!, {
  WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
})
await live.whenSynced()
live.doc.getText('notes').insert(0, 'hello')
live.destroy()
process.stdout.write('destroyed\n')
