// Updates that change nothing cost a writer nothing to send and the server nothing to keep: a raw
// client re-sending one update many times (and empty updates) must not grow the log or be broadcast.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { decodeMessage, encodeUpdate } from '@tandem/protocol/messages'
import { rawClient, type RawClient } from '../helpers/raw-client.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
beforeAll(async () => {
  h = await startTandem({}, { api: false })
})
afterAll(async () => h.close())

/** Document updates (sync step 2 or update) a raw client received. */
const updatesReceived = (c: RawClient) => c.messages.filter((m) => m[0] === 0 && (m[1] === 1 || m[1] === 2))

async function logLength(docId: string): Promise<number> {
  let n = 0
  for await (const _ of h.server.store.readLog(docId)) n++
  return n
}

describe('updates that change nothing', () => {
  it('a re-sent update, a re-sent deletion and empty updates are neither stored nor broadcast', async () => {
    const t = await h.token('acme', 'resend')
    const writer = await rawClient(`${h.wsUrl}/acme/resend?yauth=${t}`)
    const reader = await rawClient(`${h.wsUrl}/acme/resend?yauth=${t}`)
    const d = new Y.Doc()
    d.getText('t').insert(0, 'hello')
    const insert = Y.encodeStateAsUpdate(d)
    const sv = Y.encodeStateVector(d)
    d.getText('t').delete(0, 1)
    const deletion = Y.encodeStateAsUpdate(d, sv)

    writer.send(encodeUpdate(insert))
    writer.send(encodeUpdate(deletion))
    await eventually(async () => expect(await logLength('acme/resend/main')).toBe(2))
    await eventually(() => expect(updatesReceived(reader).length).toBeGreaterThan(0))
    const before = updatesReceived(reader).length

    for (let i = 0; i < 200; i++) {
      writer.send(encodeUpdate(insert))
      writer.send(encodeUpdate(deletion))
      writer.send(encodeUpdate(Uint8Array.of(0, 0)))
      if (i % 20 === 0) await new Promise((r) => setTimeout(r, 5)) // across many server ticks
    }
    // A real change after the flood: once the reader has it, the flood has been processed.
    const svBeforeMarker = Y.encodeStateVector(d)
    d.getText('t').insert(0, '!')
    writer.send(encodeUpdate(Y.encodeStateAsUpdate(d, svBeforeMarker)))
    await eventually(() => {
      const seen = new Y.Doc()
      for (const m of updatesReceived(reader)) Y.applyUpdate(seen, (decodeMessage(m) as { update: Uint8Array }).update)
      expect(seen.getText('t').toString()).toBe('!ello')
    })

    expect(updatesReceived(reader).length).toBe(before + 1)
    expect(await logLength('acme/resend/main')).toBe(3)
    expect(writer.errors).toEqual([])
    writer.ws.close()
    reader.ws.close()
  })
})
