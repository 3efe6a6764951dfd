// The Hocuspocus root URL under bad input and unauthenticated traffic (raw frames over `ws`), token
// expiry with the provider's token function, and durability: unsyncedChanges at 0, then kill -9.
import * as encoding from 'lib0/encoding'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { runAdmin } from '../../src/cli/admin.js'
import { authenticated, hocusClients, type HocusClients } from '../helpers/hocuspocus.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'

/** A raw socket on the root URL: frames received (decoded name and rest), and how it closed. */
interface Raw {
  ws: WebSocket
  frames: { name: string; type: number; sub: number; text: string }[]
  closed: Promise<{ code: number; reason: string }>
}

async function raw(url: string): Promise<Raw> {
  const ws = new WebSocket(url)
  const frames: Raw['frames'] = []
  ws.on('message', (data: Buffer) => {
    const d = new Uint8Array(data)
    const len = d[0]!
    const name = Buffer.from(d.subarray(1, 1 + len)).toString()
    const rest = d.subarray(1 + len)
    frames.push({ name, type: rest[0]!, sub: rest[1]!, text: Buffer.from(rest.subarray(3)).toString() })
  })
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    ws.on('close', (code, reason) => r({ code, reason: String(reason) })),
  )
  await new Promise((r, j) => {
    ws.once('open', r)
    ws.once('error', j)
  })
  return { ws, frames, closed }
}

function frame(name: string, ...parts: (number | string | Uint8Array)[]): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarString(e, name)
  for (const p of parts) {
    if (typeof p === 'number') encoding.writeVarUint(e, p)
    else if (typeof p === 'string') encoding.writeVarString(e, p)
    else encoding.writeVarUint8Array(e, p)
  }
  return encoding.toUint8Array(e)
}

const AUTH = 2
const denied = (r: Raw, name: string) =>
  r.frames.filter((f) => f.name === name && f.type === AUTH && f.sub === 1).map((f) => f.text)

describe('Hocuspocus root URL: bad input and unauthenticated traffic', () => {
  let h: Harness
  afterEach(async () => h.close())

  it('refuses per document what it cannot take, closes 4400 only on a frame without a name', async () => {
    h = await startTandem({}, { api: false })
    const r = await raw(h.wsUrl)
    const t = await h.token('acme', 'hp-bad')
    r.ws.send(frame('acme/hp-bad', AUTH, 0, t))
    await eventually(() =>
      expect(r.frames.some((f) => f.name === 'acme/hp-bad' && f.type === AUTH && f.sub === 2)).toBe(true),
    )
    r.ws.send(frame('acme/hp-other', 1, new Uint8Array([0]))) // awareness for a document never authenticated
    r.ws.send(frame('org only', AUTH, 0, t)) // not {org}/{doc_id}
    r.ws.send(frame('acme/hp-odd', 6)) // an unknown type
    await eventually(() => {
      expect(denied(r, 'acme/hp-other')).toEqual(['not authenticated: send Auth with a token for this document first'])
      expect(denied(r, 'org only')).toEqual(['bad document name: expected {org}/{doc_id}'])
      expect(denied(r, 'acme/hp-odd')).toEqual(['malformed message: unknown message type 6'])
    })
    // the authenticated document is still served: an update is acknowledged with SyncStatus
    const d = new Y.Doc()
    d.getText('t').insert(0, 'ok')
    r.ws.send(frame('acme/hp-bad', 0, 2, Y.encodeStateAsUpdate(d)))
    await eventually(() =>
      expect(r.frames.some((f) => f.name === 'acme/hp-bad' && f.type === 8 && f.sub === 1)).toBe(true),
    )
    // a malformed body for a joined document ends that document only
    r.ws.send(frame('acme/hp-bad', 0, 2, new Uint8Array([1, 2, 3])))
    await eventually(() => expect(denied(r, 'acme/hp-bad')).toEqual(['malformed Yjs update']))
    r.ws.send(new Uint8Array([30, 1])) // the name's length runs past the end
    expect(await r.closed).toEqual({ code: 4400, reason: 'malformed frame: length past end of message' })
  })

  it('closes a socket that authenticates nothing within the time bound', async () => {
    h = await startTandem({ hocuspocusUnauthSec: 1 }, { api: false })
    const r = await raw(h.wsUrl)
    const started = Date.now()
    expect(await r.closed).toEqual({ code: 1008, reason: 'no document authenticated within 1 s' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
  })

  it('bounds messages, bytes and documents before the first admission', async () => {
    h = await startTandem(
      { hocuspocusUnauthMessages: 5, hocuspocusUnauthBytes: 4096, hocuspocusMaxDocs: 3 },
      { api: false },
    )
    const byMessages = await raw(h.wsUrl)
    for (let i = 0; i < 6; i++) byMessages.ws.send(frame('acme/x', 3))
    expect(await byMessages.closed).toEqual({
      code: 1008,
      reason: 'over 5 messages before a document was authenticated',
    })
    const byBytes = await raw(h.wsUrl)
    byBytes.ws.send(frame('acme/x', 5, 'x'.repeat(5000)))
    expect(await byBytes.closed).toEqual({ code: 1008, reason: 'over 4096 bytes before a document was authenticated' })
    const byDocs = await raw(h.wsUrl)
    for (let i = 0; i < 4; i++) byDocs.ws.send(frame(`acme/d${i}`, AUTH, 0, 'not-a-token'))
    expect(await byDocs.closed).toEqual({ code: 1008, reason: 'over 3 documents before one was authenticated' })
    // once a document is admitted the bounds are lifted: more than 5 messages pass
    const ok = await raw(h.wsUrl)
    ok.ws.send(frame('acme/x', AUTH, 0, await h.token('acme', 'x')))
    await eventually(() => expect(ok.frames.some((f) => f.type === AUTH && f.sub === 2)).toBe(true))
    for (let i = 0; i < 10; i++) ok.ws.send(frame('acme/x', 0, 0, new Uint8Array([0]))) // sync step 1, answered with step 2
    await eventually(() => expect(ok.frames.filter((f) => f.type === 0 && f.sub === 1)).toHaveLength(10))
    expect(ok.ws.readyState).toBe(WebSocket.OPEN)
    ok.ws.close()
  })
})

describe('Hocuspocus lifecycle per document', () => {
  let h: Harness
  afterEach(async () => h.close())

  it('a deleted document is refused alone; a drain closes the socket 1012', async () => {
    h = await startTandem({}, { api: false })
    const r = await raw(h.wsUrl)
    r.ws.send(frame('acme/hp-del', AUTH, 0, await h.token('acme', 'hp-del')))
    r.ws.send(frame('acme/hp-keep', AUTH, 0, await h.token('acme', 'hp-keep')))
    await eventually(() => expect(r.frames.filter((f) => f.type === AUTH && f.sub === 2)).toHaveLength(2))
    h.server.registry.closeDocument('acme', 'hp-del', 4404, 'document deleted')
    await eventually(() => expect(denied(r, 'acme/hp-del')).toEqual(['document deleted']))
    r.ws.send(frame('acme/hp-keep', 0, 0, new Uint8Array([0])))
    await eventually(() =>
      expect(r.frames.some((f) => f.name === 'acme/hp-keep' && f.type === 0 && f.sub === 1)).toBe(true),
    )
    r.ws.send(frame('acme/hp-del', 0, 0, new Uint8Array([0])))
    await eventually(() => expect(denied(r, 'acme/hp-del')).toHaveLength(2))
    h.server.registry.closeDocument('acme', 'hp-keep', 1012, 'node draining: reconnect')
    expect(await r.closed).toEqual({ code: 1012, reason: 'node draining: reconnect' })
  })
})

describe('Hocuspocus slow consumer', () => {
  let h: Harness
  afterEach(async () => h.close())

  it('a socket that stops reading is closed 1013 whole; its documents leave their rooms', async () => {
    h = await startTandem({ maxBackpressureBytes: 256 * 1024 }, { api: false })
    const r = await raw(h.wsUrl)
    r.ws.send(frame('acme/hp-slow', AUTH, 0, await h.token('acme', 'hp-slow')))
    r.ws.send(frame('acme/hp-slow-2', AUTH, 0, await h.token('acme', 'hp-slow-2')))
    await eventually(() => expect(r.frames.filter((f) => f.type === AUTH && f.sub === 2)).toHaveLength(2))
    const socket = (r.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket
    socket.pause()
    const writer = new Y.Doc()
    const pw = h.provider('acme', 'hp-slow', await h.token('acme', 'hp-slow'), writer)
    await synced(pw)
    const room = h.server.registry.loaded('acme/hp-slow/main')!
    const other = h.server.registry.loaded('acme/hp-slow-2/main')!
    for (let i = 0; i < 2000 && room.peers.size === 2; i++) {
      writer.getText('t').insert(0, String(i % 10).repeat(16 * 1024))
      await new Promise((res) => setTimeout(res, 5))
    }
    await eventually(() => expect(room.peers.size).toBe(1))
    socket.resume()
    expect((await r.closed).code).toBe(1013)
    await eventually(() => expect(other.peers.size).toBe(0))
  })
})

describe('Hocuspocus token expiry', () => {
  let h: Harness
  let c: HocusClients
  afterEach(async () => {
    c.destroy()
    await h.close()
  })

  it('asks the provider for a fresh token at expiry and keeps the document on the socket', async () => {
    h = await startTandem({ tokenClockSkewSec: 0 }, { api: false })
    c = hocusClients()
    let minted = 0
    const token = async () => {
      minted++
      return (
        await mintToken(h.server.deps.keys, {
          org: 'acme',
          doc: 'hp-exp',
          sub: 'ann@example.com',
          acc: 'rw',
          ttlSec: 2,
        })
      ).token
    }
    const doc = new Y.Doc()
    const socket = c.socket(h.wsUrl)
    let closes = 0
    socket.on('close', () => closes++)
    const p = c.provider(socket, 'acme/hp-exp', token, doc)
    await authenticated(p)
    await new Promise((r) => setTimeout(r, 3500)) // past the first token's expiry
    await eventually(() => expect(minted).toBeGreaterThanOrEqual(2))
    doc.getText('t').insert(0, 'after expiry')
    const copy = new Y.Doc()
    const other = c.provider(c.socket(h.wsUrl), 'acme/hp-exp', await h.token('acme', 'hp-exp'), copy)
    await authenticated(other)
    await eventually(() => {
      expect(copy.getText('t').toString()).toBe('after expiry')
      expect(p.unsyncedChanges).toBe(0)
    })
    expect(closes).toBe(0)
  })
  it('asks for a fresh token before expiry: the document never leaves its room, its presence never drops', async () => {
    h = await startTandem({ tokenClockSkewSec: 0 }, { api: false })
    c = hocusClients()
    const mints: { at: number; expMs: number }[] = []
    const token = async () => {
      const { token, expiresAtMs } = await mintToken(h.server.deps.keys, {
        org: 'acme',
        doc: 'hp-renew',
        sub: 'ann@example.com',
        acc: 'rw',
        ttlSec: 4,
      })
      mints.push({ at: Date.now(), expMs: expiresAtMs })
      return token
    }
    const doc = new Y.Doc()
    const p = c.provider(c.socket(h.wsUrl), 'acme/hp-renew', token, doc)
    await authenticated(p)
    p.setAwarenessField('user', { name: 'ann' })
    const watcher = c.provider(c.socket(h.wsUrl), 'acme/hp-renew', await h.token('acme', 'hp-renew'))
    await authenticated(watcher)
    await eventually(() => expect(watcher.awareness!.getStates().get(doc.clientID)).toEqual({ user: { name: 'ann' } }))
    const dropped: number[] = []
    watcher.awareness!.on('change', ({ removed }: { removed: number[] }) => dropped.push(...removed))
    const firstExpMs = mints[0]!.expMs
    await new Promise((r) => setTimeout(r, firstExpMs - Date.now() + 1500)) // past the first token's expiry
    // asked while the first token was still valid
    expect(mints.length).toBeGreaterThanOrEqual(2)
    expect(mints[1]!.at).toBeLessThan(firstExpMs)
    expect(dropped).not.toContain(doc.clientID)
    doc.getText('t').insert(0, 'across the expiry')
    await eventually(() => expect(p.unsyncedChanges).toBe(0))
    expect(dropped).not.toContain(doc.clientID)
  })
})

describe('Hocuspocus revocation', () => {
  let h: Harness
  let c: HocusClients
  afterEach(async () => {
    c.destroy()
    await h.close()
  })

  it('a revoked token ends its document alone; the socket keeps the other', async () => {
    h = await startTandem()
    c = hocusClients()
    const socket = c.socket(h.wsUrl)
    const revoked = c.provider(socket, 'acme/hp-rev', await h.token('acme', 'hp-rev', { sub: 'rita@example.com' }))
    const keptDoc = new Y.Doc()
    const kept = c.provider(
      socket,
      'acme/hp-rev-2',
      await h.token('acme', 'hp-rev-2', { sub: 'rita@example.com' }),
      keptDoc,
    )
    await Promise.all([authenticated(revoked), authenticated(kept)])
    let closes = 0
    socket.on('close', () => closes++)
    const reason = new Promise<string>((r) =>
      revoked.on('authenticationFailed', ({ reason }: { reason: string }) => r(reason)),
    )
    const code = await runAdmin(
      ['tokens', 'revoke', '--sub', 'rita@example.com', '--doc', 'hp-rev', '--json'],
      h.config,
      () => {},
    )
    expect(code).toBe(0)
    // asked for a fresh token, the provider sends the same (revoked) one: refused
    expect(await reason).toBe('token invalid')
    keptDoc.getText('t').insert(0, 'kept')
    await eventually(() => expect(kept.unsyncedChanges).toBe(0))
    expect(closes).toBe(0)
  })
})

describe('Hocuspocus SyncStatus is durable', () => {
  let dir: string
  let server: TandemProcess | null = null
  const clients: HocusClients[] = []
  afterEach(async () => {
    for (const c of clients.splice(0)) c.destroy()
    await server?.stop('SIGKILL')
    await rm(dir, { recursive: true, force: true })
  })

  it('unsyncedChanges at 0, kill -9: the edit is there after restart', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tandem-hp-durable-'))
    const { file, keys } = await sharedSigningKeys(dir)
    const args = ['--data-dir', dir, '--signing-keys', file, '--log-level', 'silent']
    server = await spawnTandem(args)
    const token = (
      await mintToken(keys, { org: 'acme', doc: 'hp-durable', sub: 'ann@example.com', acc: 'rw', ttlSec: 600 })
    ).token
    const c = hocusClients()
    clients.push(c)
    const doc = new Y.Doc()
    const p = c.provider(c.socket(server.wsUrl), 'acme/hp-durable', token, doc)
    await authenticated(p)
    for (let i = 0; i < 50; i++) doc.getText('t').insert(0, `${i % 10}`)
    await eventually(() => expect(p.unsyncedChanges).toBe(0), 20_000)
    const expected = doc.getText('t').toString()
    await server.stop('SIGKILL') // at once: nothing gets a chance to flush
    c.destroy()
    server = await spawnTandem(args)
    const c2 = hocusClients()
    clients.push(c2)
    const copy = new Y.Doc()
    await authenticated(c2.provider(c2.socket(server.wsUrl), 'acme/hp-durable', token, copy))
    await eventually(() => expect(copy.getText('t').toString()).toBe(expected))
    expect(expected).toHaveLength(50)
  })
})
