// Rooms that hold documents encoded, under an editor's whole repertoire, with real providers, a
// real server process on LevelDB and a kill -9 in the middle: every provider, the REST ydoc and a
// fresh provider after a restart end equal to the merge of everything every client wrote, and an
// update sent ahead of what it builds on is neither lost nor announced before the gap fills.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import type { KeyRing } from '../../src/auth/keys/ring.js'
import { content, edit, prng } from '../helpers/random-edits.js'
import { eventually } from '../helpers/tandem.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

interface Client {
  doc: Y.Doc
  undo: Y.UndoManager
  provider: WebsocketProvider | null
}

describe('lean rooms with real providers', () => {
  it('random edits with formats, maps, nested arrays, XML, undo and redo, offline periods, gap updates over REST and a kill -9 converge everywhere', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tandem-lean-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const { file, keys } = await sharedSigningKeys(dir)
    const args = ['--data-dir', dir, '--signing-keys', file, '--log-level', 'silent', '--compact-threshold', '40']
    let server: TandemProcess = await spawnTandem(args)
    cleanups.push(() => server.stop('SIGKILL'))
    const token = () => mint(keys)
    const rand = prng(2026)

    const clients: Client[] = [1, 2, 3].map((id) => {
      const doc = new Y.Doc()
      doc.clientID = id
      const undo = new Y.UndoManager([doc.getText('t'), doc.getMap('m'), doc.getArray('a'), doc.getXmlFragment('x')], {
        captureTimeout: 0,
      })
      return { doc, undo, provider: null }
    })
    const connect = async (c: Client) => {
      c.provider = new WebsocketProvider(`${server.wsUrl}/lean`, 'mix', c.doc, {
        params: { yauth: await token() },
        WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
        disableBc: true,
      })
    }
    const disconnectAll = () => {
      for (const c of clients) {
        c.provider?.destroy()
        c.provider = null
      }
    }
    cleanups.push(disconnectAll)
    for (const c of clients) await connect(c)
    await eventually(() => expect(clients.every((c) => c.provider!.synced)).toBe(true))

    // a REST writer whose updates go over PATCH, sometimes the later one first
    const rest = new Y.Doc()
    rest.clientID = 9
    const restUpdates: Uint8Array[] = []
    rest.on('update', (u: Uint8Array) => restUpdates.push(u))
    const patch = async (u: Uint8Array) => {
      const res = await fetch(`${server.httpUrl}/ydoc/v1/lean/mix`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/octet-stream' },
        body: u,
      })
      expect(res.status).toBe(200)
    }
    const read = async () => {
      const res = await fetch(`${server.httpUrl}/ydoc/v1/lean/mix`, {
        headers: { authorization: `Bearer ${await token()}`, accept: 'application/octet-stream' },
      })
      expect(res.status).toBe(200)
      const d = new Y.Doc()
      Y.applyUpdate(d, new Uint8Array(await res.arrayBuffer()))
      return d
    }

    let gaps = 0
    for (let step = 0; step < 400; step++) {
      const c = clients[Math.floor(rand() * clients.length)]!
      const r = rand()
      if (r < 0.05) c.undo.undo()
      else if (r < 0.08) c.undo.redo()
      else if (r < 0.11 && c.provider) {
        c.provider.destroy() // offline for a while, editing meanwhile
        c.provider = null
      } else if (r < 0.15 && !c.provider) await connect(c)
      else if (r < 0.17) {
        // a gap over REST: the later update first is held (stored, acknowledged, not announced,
        // served as a Y.Doc serves pending structs)
        restUpdates.length = 0
        const before9 = Y.getState(rest.store, 9)
        edit(rest, rand)
        edit(rest, rand)
        const [first, second] = restUpdates
        const gap =
          first && second && (Y.parseUpdateMeta(first).to.get(9) ?? 0) > before9 && Y.parseUpdateMeta(second).to.has(9)
        if (gap) {
          gaps++
          await patch(second)
          const during = await read()
          expect(Y.getState(during.store, 9)).toBe(before9) // neither integrated nor announced
          expect(during.store.pendingStructs).not.toBeNull() // but served, as pending
          await patch(first)
          expect(Y.getState((await read()).store, 9)).toBe(Y.getState(rest.store, 9)) // served once the gap filled
        } else for (const u of restUpdates) await patch(u)
      } else if (r < 0.2) await read()
      else edit(c.doc, rand)
      if (step === 200) {
        // kill -9 mid-run: whatever was acknowledged is on disk; the clients hold the rest
        await server.stop('SIGKILL')
        disconnectAll()
        server = await spawnTandem(args)
        for (const x of clients) if (rand() < 0.8) await connect(x)
      }
      if (step % 25 === 0) await new Promise((res) => setTimeout(res, 20))
    }
    for (const c of clients) if (!c.provider) await connect(c)
    expect(gaps).toBeGreaterThan(2)

    // the oracle: everything every client and the REST writer wrote
    const oracle = new Y.Doc()
    for (const d of [...clients.map((c) => c.doc), rest]) Y.applyUpdate(oracle, Y.encodeStateAsUpdate(d))
    const want = Y.encodeStateVector(oracle)
    // deletions move no state vector: wait for the content as well
    await eventually(() => {
      for (const c of clients) {
        expect(Y.encodeStateVector(c.doc)).toEqual(want)
        expect(content(c.doc)).toEqual(content(oracle))
      }
    }, 30_000)
    await eventually(async () => {
      const d = await read()
      expect(Y.encodeStateVector(d)).toEqual(want)
      expect(content(d)).toEqual(content(oracle))
    })

    // a fresh provider after a graceful restart
    disconnectAll()
    await server.stop('SIGTERM')
    server = await spawnTandem(args)
    const fresh: Client = { doc: new Y.Doc(), undo: null as unknown as Y.UndoManager, provider: null }
    await connect(fresh)
    cleanups.push(() => fresh.provider?.destroy())
    await eventually(() => {
      expect(Y.encodeStateVector(fresh.doc)).toEqual(want)
      expect(content(fresh.doc)).toEqual(content(oracle))
    }, 20_000)
  }, 180_000)
})

async function mint(keys: KeyRing): Promise<string> {
  return (await mintToken(keys, { org: 'lean', doc: 'mix', sub: 'ann@example.com', acc: 'rw', ttlSec: 600 })).token
}
