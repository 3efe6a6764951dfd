import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { CLOSE } from '@tandem/protocol/close-codes'
import { encodeAuthRefresh, encodeUpdate } from '@tandem/protocol/messages'
import { rawClient } from '../helpers/raw-client.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
beforeAll(async () => {
  h = await startTandem(
    { maxMessageBytes: 64 * 1024, maxDocBytes: 256 * 1024, maxConnectionsPerRoom: 3 },
    { api: false },
  )
})
afterAll(async () => h.close())

async function watcher(doc: string) {
  const t = await h.token('acme', doc)
  const ydoc = new Y.Doc()
  const p = h.provider('acme', doc, t, ydoc)
  await synced(p)
  ydoc.getText('t').insert(0, 'kept')
  return { t, ydoc, p }
}

async function expectRoomUnharmed(doc: string, ydoc: Y.Doc, t: string) {
  const late = new Y.Doc()
  await synced(h.provider('acme', doc, t, late))
  await eventually(() => expect(late.getText('t').toString()).toBe(ydoc.getText('t').toString()))
  expect(late.getText('t').toString()).toBe('kept')
}

describe('malformed frames close only the sender', () => {
  it.each([
    ['unknown message type', [42]],
    ['bad varint', [0, 0x80]],
    ['unknown sync sub-type', [0, 9, 0]],
    ['length past the end', [0, 2, 10, 1]],
    ['truncated Yjs update', Array.from(encodeUpdate(Uint8Array.of(1, 1, 200, 1, 0, 4)))],
  ])('%s: closes 4400, the room and other clients carry on', async (name, bytes) => {
    const doc = `malformed-${name.replace(/\W+/g, '-')}`
    const { t, ydoc } = await watcher(doc)
    const c = await rawClient(`${h.wsUrl}/acme/${doc}?yauth=${t}`)
    c.send(bytes)
    const { code } = await c.closed
    expect(c.errors).toEqual([])
    expect(code).toBe(CLOSE.malformed)
    await expectRoomUnharmed(doc, ydoc, t)
  })

  it('an oversized frame closes with 1009 and nothing of it is stored', async () => {
    const { t, ydoc } = await watcher('oversized')
    const c = await rawClient(`${h.wsUrl}/acme/oversized?yauth=${t}`)
    const big = new Y.Doc()
    big.getText('t').insert(0, 'y'.repeat(100 * 1024))
    c.send(encodeUpdate(Y.encodeStateAsUpdate(big)))
    expect((await c.closed).code).toBe(1009)
    await expectRoomUnharmed('oversized', ydoc, t)
  })

  it('an update that would grow the document past its limit closes with 1009', async () => {
    const { t, ydoc } = await watcher('doc-limit')
    const c = await rawClient(`${h.wsUrl}/acme/doc-limit?yauth=${t}`)
    for (let i = 0; i < 6; i++) {
      const d = new Y.Doc()
      d.getText('t').insert(0, String(i).repeat(60 * 1024))
      c.send(encodeUpdate(Y.encodeStateAsUpdate(d)))
    }
    expect((await c.closed).code).toBe(1009)
    expect(ydoc.getText('t').length).toBeLessThan(256 * 1024)
  })
})

describe('room capacity', () => {
  it('closes connections past max-connections-per-room with 1013 room is full', async () => {
    const t = await h.token('acme', 'full')
    const url = `${h.wsUrl}/acme/full?yauth=${t}`
    const clients = await Promise.all([1, 2, 3].map(() => rawClient(url)))
    // Joined once the room (loaded after these first opens) sent each its sync step 1.
    await eventually(() => expect(clients.every((c) => c.messages.length > 0)).toBe(true))
    // The room is loaded now: the fourth is upgraded, then closed as a first visitor would be.
    const fourth = await rawClient(url)
    expect(await fourth.closed).toEqual({ code: CLOSE.tryAgainLater, reason: 'room is full' })
    expect(fourth.messages).toEqual([])
    clients[0]!.ws.close()
    await clients[0]!.closed
    await eventually(async () => {
      const again = await rawClient(url)
      // its first message may have come with the upgrade's answer, before this line
      const joined =
        again.messages.length > 0
          ? 'joined'
          : new Promise<string>((res) => again.ws.once('message', () => res('joined')))
      const outcome = await Promise.race([joined, again.closed.then((c) => c.reason)])
      again.ws.close()
      expect(outcome).toBe('joined')
    })
    for (const c of clients) c.ws.close()
  })
})

describe('token expiry on a live connection', () => {
  it('closes with 4401 when the token expires', async () => {
    const t = await h.token('acme', 'expiry', { ttlSec: 2 })
    const c = await rawClient(`${h.wsUrl}/acme/expiry?yauth=${t}`)
    const closed = await c.closed
    expect(closed.code).toBe(CLOSE.tokenExpired)
    expect(closed.reason).toMatch(/expired/)
  })

  it('keeps the socket when a fresh token for the same document arrives in band', async () => {
    const t = await h.token('acme', 'refresh', { ttlSec: 2 })
    const c = await rawClient(`${h.wsUrl}/acme/refresh?yauth=${t}`)
    c.send(encodeAuthRefresh(await h.token('acme', 'refresh', { ttlSec: 600 })))
    await eventually(() => expect(c.messages.some((m) => m[0] === 2 && m[1] === 2)).toBe(true))
    const outcome = await Promise.race([c.closed, new Promise((r) => setTimeout(() => r('open'), 3500))])
    expect(outcome).toBe('open')
    c.ws.close()
  })

  it('refuses a refresh token for another document and keeps the current one', async () => {
    const t = await h.token('acme', 'refresh2', { ttlSec: 600 })
    const c = await rawClient(`${h.wsUrl}/acme/refresh2?yauth=${t}`)
    c.send(encodeAuthRefresh(await h.token('acme', 'elsewhere')))
    await eventually(() => expect(c.messages.some((m) => m[0] === 2 && m[1] === 0)).toBe(true))
    expect(c.ws.readyState).toBe(c.ws.OPEN)
    c.ws.close()
  })
})
