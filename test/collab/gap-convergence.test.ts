// A randomized convergence run built around gaps: raw clients send their updates shuffled (over a
// socket or REST), so updates wait for what they build on for many steps while stock providers
// type, undo, go offline and come back, and readers join (y-websocket and Hocuspocus), all during open gaps; the server
// is killed (SIGKILL) and stopped (SIGTERM) mid-run. In the end every provider, every reader, the REST ydoc and a fresh
// provider after a restart hold exactly what everybody wrote, with nothing left pending. Seeded: a failure names its
// seed and reproduces.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import type { KeyRing } from '../../src/auth/keys/ring.js'
import { encodeUpdate } from '@tandem/protocol/messages'
import { BACKENDS } from '../helpers/backends.js'
import { hocusClients } from '../helpers/hocuspocus.js'
import { content, edit, prng } from '../helpers/random-edits.js'
import { rawClient, type RawClient } from '../helpers/raw-client.js'
import { eventually } from '../helpers/tandem.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const DOCS = 3
const STEPS = 240

interface Editor {
  doc: Y.Doc
  undo: Y.UndoManager | null
  provider: { destroy(): void } | null
  /** speaks Hocuspocus (one socket of its own) rather than y-websocket */
  hocuspocus?: boolean
}

/** A client that sends its updates in its own order: every update it made, and those not sent yet. */
interface Shuffler {
  doc: Y.Doc
  made: Uint8Array[]
  queue: Uint8Array[]
  socket: RawClient | null
}

describe.each(BACKENDS)('randomized convergence around gaps on $name', (backend) => {
  it('shuffled senders, joins and rejoins during gaps on both protocols, a kill -9 and a restart: every peer ends with everything, nothing pending', async () => {
    const seed = Number(process.env.GAP_SEED ?? 4400) + (backend.name === 'postgres' ? 1 : 0) // GAP_SEED=n tries others
    const rand = prng(seed)
    const dir = await mkdtemp(join(tmpdir(), 'tandem-gaps-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const { file, keys } = await sharedSigningKeys(dir)
    const o = await backend.overrides()
    const storage = o.postgresUrl ? ['--postgres-url', o.postgresUrl, '--postgres-schema', o.postgresSchema!] : []
    const args = [
      '--data-dir',
      dir,
      '--signing-keys',
      file,
      '--log-level',
      'silent',
      '--compact-threshold',
      '30',
      ...storage,
    ]
    let server: TandemProcess = await spawnTandem(args)
    cleanups.push(() => server.stop('SIGKILL'))
    const names = Array.from({ length: DOCS }, (_, i) => `gaps-${backend.name}-${i}`)
    const token = (name: string) => mint(keys, name)

    const editors: Editor[][] = names.map((_, d) =>
      [1, 2, 3].map((k) => {
        const doc = new Y.Doc()
        doc.clientID = 100 * (d + 1) + k
        const undo = new Y.UndoManager(
          [doc.getText('t'), doc.getMap('m'), doc.getArray('a'), doc.getXmlFragment('x')],
          { captureTimeout: 0 },
        )
        return { doc, undo, provider: null }
      }),
    )
    const readers: Editor[][] = names.map(() => [])
    const shufflers: Shuffler[] = names.map((_, d) => {
      const doc = new Y.Doc()
      doc.clientID = 9000 + d
      const s: Shuffler = { doc, made: [], queue: [], socket: null }
      doc.on('update', (u: Uint8Array) => s.made.push(u))
      return s
    })
    const connect = async (e: Editor, name: string) => {
      if (e.hocuspocus) {
        const c = hocusClients()
        c.provider(c.socket(server.wsUrl), `gaps/${name}`, await token(name), e.doc)
        e.provider = c
        return
      }
      e.provider = new WebsocketProvider(`${server.wsUrl}/gaps`, name, e.doc, {
        params: { yauth: await token(name) },
        WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
        disableBc: true,
      })
    }
    const everyone = () => [...editors.flat(), ...readers.flat()]
    const disconnectAll = () => {
      for (const e of everyone()) {
        e.provider?.destroy()
        e.provider = null
      }
      for (const s of shufflers) {
        s.socket?.ws.close()
        s.socket = null
      }
    }
    cleanups.push(disconnectAll)
    for (const [d, name] of names.entries()) for (const e of editors[d]!) await connect(e, name)

    const send = async (s: Shuffler, name: string, u: Uint8Array) => {
      if (rand() < 0.4) {
        const res = await fetch(`${server.httpUrl}/ydoc/v1/gaps/${name}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${await token(name)}`, 'content-type': 'application/octet-stream' },
          body: u,
        })
        expect(res.status).toBe(200)
      } else {
        s.socket ??= await rawClient(`${server.wsUrl}/gaps/${name}?yauth=${await token(name)}`)
        s.socket.send(encodeUpdate(u))
      }
    }
    const restart = async (signal: NodeJS.Signals) => {
      await server.stop(signal)
      disconnectAll()
      server = await spawnTandem(args)
      for (const [d, name] of names.entries()) {
        for (const e of [...editors[d]!, ...readers[d]!]) if (rand() < 0.85) await connect(e, name)
        // a shuffling client that reconnects sends everything it made again, in its own order
        shufflers[d]!.queue = shuffle([...shufflers[d]!.made], rand)
      }
    }

    let gapsOpen = 0
    for (let step = 0; step < STEPS; step++) {
      const d = Math.floor(rand() * DOCS)
      const name = names[d]!
      const s = shufflers[d]!
      const r = rand()
      const waiting = shufflers.findIndex((x) => x.queue.length > 0)
      if (waiting >= 0 && rand() < 0.3)
        await send(shufflers[waiting]!, names[waiting]!, shufflers[waiting]!.queue.shift()!)
      if (r < 0.12 && s.queue.length === 0) {
        // a burst of edits, to go out shuffled over the next steps
        const burst = s.made.length
        for (let k = 0, n = 2 + Math.floor(rand() * 7); k < n; k++) edit(s.doc, rand)
        const inOrder = s.made.slice(burst)
        s.queue.push(...shuffle([...inOrder], rand))
        if (s.queue.some((u, i) => u !== inOrder[i])) gapsOpen++
      } else if (r < 0.3 && s.queue.length > 0) await send(s, name, s.queue.shift()!)
      else if (r < 0.36) {
        // someone goes offline, or comes back (a rejoin, often during a gap)
        const e = editors[d]![Math.floor(rand() * 3)]!
        if (e.provider) {
          e.provider.destroy()
          e.provider = null
        } else await connect(e, name)
      } else if (r < 0.39) {
        // a reader joins, on either protocol
        const e: Editor = { doc: new Y.Doc(), undo: null, provider: null, hocuspocus: rand() < 0.5 }
        readers[d]!.push(e)
        await connect(e, name)
      } else if (r < 0.42) editors[d]![Math.floor(rand() * 3)]!.undo!.undo()
      else if (r < 0.44) editors[d]![Math.floor(rand() * 3)]!.undo!.redo()
      else edit(editors[d]![Math.floor(rand() * 3)]!.doc, rand)
      // the network's own delays
      if (rand() < 0.15) await new Promise((res) => setTimeout(res, Math.floor(rand() * 25)))
      if (step === Math.floor(STEPS / 3)) await restart('SIGKILL')
      if (step === Math.floor((2 * STEPS) / 3)) await restart('SIGTERM')
    }
    // every gap fills; everyone comes back
    for (const [d, name] of names.entries()) {
      const s = shufflers[d]!
      while (s.queue.length > 0) await send(s, name, s.queue.shift()!)
      for (const e of [...editors[d]!, ...readers[d]!]) if (!e.provider) await connect(e, name)
    }
    expect(gapsOpen).toBeGreaterThan(4)

    for (const [d, name] of names.entries()) {
      const oracle = new Y.Doc()
      for (const x of [...editors[d]!.map((e) => e.doc), shufflers[d]!.doc])
        Y.applyUpdate(oracle, Y.encodeStateAsUpdate(x))
      const want = Y.encodeStateVector(oracle)
      const peers = [...editors[d]!, ...readers[d]!]
      // deletions move no state vector: wait for the content as well
      await eventually(() => {
        for (const e of peers) {
          expect(Y.encodeStateVector(e.doc), `seed ${seed}, ${name}`).toEqual(want)
          expect(e.doc.store.pendingStructs, `seed ${seed}, ${name}`).toBeNull()
          expect(content(e.doc), `seed ${seed}, ${name}`).toEqual(content(oracle))
        }
      }, 40_000)
      const rest = await read(server, name, await token(name))
      expect(Y.encodeStateVector(rest)).toEqual(want)
      expect(content(rest)).toEqual(content(oracle))
    }

    // and after a graceful restart, a fresh provider gets each document whole
    disconnectAll()
    await server.stop('SIGTERM')
    server = await spawnTandem(args)
    for (const [d, name] of names.entries()) {
      const oracle = new Y.Doc()
      for (const x of [...editors[d]!.map((e) => e.doc), shufflers[d]!.doc])
        Y.applyUpdate(oracle, Y.encodeStateAsUpdate(x))
      const fresh: Editor = { doc: new Y.Doc(), undo: null, provider: null }
      readers[d]!.push(fresh)
      await connect(fresh, name)
      await eventually(() => {
        expect(Y.encodeStateVector(fresh.doc)).toEqual(Y.encodeStateVector(oracle))
        expect(fresh.doc.store.pendingStructs).toBeNull()
        expect(content(fresh.doc)).toEqual(content(oracle))
      }, 20_000)
    }
  }, 240_000)
})

function shuffle<T>(xs: T[], rand: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[xs[i], xs[j]] = [xs[j]!, xs[i]!]
  }
  return xs
}

async function read(server: TandemProcess, name: string, token: string): Promise<Y.Doc> {
  const res = await fetch(`${server.httpUrl}/ydoc/v1/gaps/${name}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/octet-stream' },
  })
  expect(res.status).toBe(200)
  const d = new Y.Doc()
  Y.applyUpdate(d, new Uint8Array(await res.arrayBuffer()))
  return d
}

async function mint(keys: KeyRing, doc: string): Promise<string> {
  return (await mintToken(keys, { org: 'gaps', doc, sub: 'ann@example.com', acc: 'rw', ttlSec: 600 })).token
}
