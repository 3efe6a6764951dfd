// The memory budget with real sockets and storage: idle rooms unload early, least recently used
// first, and reload byte-identical; once only rooms in use remain, a first join is refused with
// 1013 `server at capacity` (REST 503 with Retry-After) and nothing is written.
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import * as Y from 'yjs'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const big = (seed: string, kb: number) => {
  const d = new Y.Doc()
  d.getText('t').insert(0, seed.repeat(Math.ceil((kb * 1024) / seed.length)))
  return Y.encodeStateAsUpdate(d)
}

async function rest(method: string, doc: string, token: string, body?: Uint8Array) {
  const res = await fetch(`${h!.httpUrl}/ydoc/v1/budget/${doc}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/octet-stream',
      ...(body ? { 'content-type': 'application/octet-stream' } : {}),
    },
    ...(body ? { body } : {}),
  })
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    bytes: new Uint8Array(await res.arrayBuffer()),
  }
}

/** Opens a raw socket on a document; resolves with its close, or null once it has stayed open a while. */
function join(doc: string, token: string): Promise<{ ws: WebSocket; closed: { code: number; reason: string } | null }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${h!.wsUrl}/budget/${doc}?yauth=${token}`)
    const timer = setTimeout(() => resolve({ ws, closed: null }), 500)
    ws.on('close', (code, reason) => {
      clearTimeout(timer)
      resolve({ ws, closed: { code, reason: reason.toString() } })
    })
  })
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${h!.httpUrl}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(name + ' '))
  return line ? Number(line.split(' ')[1]) : 0
}

describe('memory budget', () => {
  it('unloads idle rooms least recently used first to load another; an evicted room reloads byte-identical', async () => {
    h = await startTandem({ memoryBudgetMb: 1, roomUnloadDelayMs: 60_000 })
    const states: Uint8Array[] = []
    for (const [i, doc] of ['a', 'b', 'c', 'd'].entries()) {
      const token = await h.token('budget', doc)
      expect((await rest('PATCH', doc, token, big(`doc ${doc} `, 400))).status).toBe(200)
      states[i] = (await rest('GET', doc, token)).bytes
    }
    expect(await metric('tandem_room_evictions_total')).toBeGreaterThanOrEqual(1)
    expect(h.server.registry.loaded('budget/a/main')).toBeUndefined() // the least recently used went first
    expect(h.server.registry.loaded('budget/d/main')).toBeDefined()
    expect(await metric('tandem_memory_budget_used_bytes')).toBeLessThan(1024 * 1024 + 400 * 1024)
    const again = await rest('GET', 'a', await h.token('budget', 'a'))
    expect(again.status).toBe(200)
    expect(Buffer.from(again.bytes).equals(Buffer.from(states[0]!))).toBe(true)
  })

  it('refuses the first join of a room past the budget with 1013 server at capacity, REST with 503 and Retry-After, and writes nothing', async () => {
    h = await startTandem({ memoryBudgetMb: 1, roomUnloadDelayMs: 60_000 })
    // rooms kept in use by an open socket each: nothing can be unloaded for room
    const open: WebSocket[] = []
    let refused: { code: number; reason: string } | null = null
    for (let i = 0; i < 8 && !refused; i++) {
      const doc = `busy${i}`
      const token = await h.token('budget', doc)
      const joined = await join(doc, token)
      if (joined.closed) {
        refused = joined.closed
        break
      }
      open.push(joined.ws)
      const patched = await rest('PATCH', doc, token, big(`busy ${i} `, 300))
      expect(patched.status).toBe(200)
    }
    expect(refused).toEqual({ code: 1013, reason: 'server at capacity' })
    const token = await h.token('budget', 'late')
    const res = await rest('PATCH', 'late', token, big('late ', 10))
    expect(res.status).toBe(503)
    expect(Number(res.retryAfter)).toBeGreaterThan(0)
    expect(await metric('tandem_capacity_refusals_total')).toBeGreaterThanOrEqual(2)
    // room is made once the sockets go: the refused document holds nothing
    for (const ws of open) ws.close()
    let after = await rest('GET', 'late', token)
    for (let i = 0; i < 50 && after.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 100))
      after = await rest('GET', 'late', token)
    }
    expect(after.status).toBe(200)
    const d = new Y.Doc()
    Y.applyUpdate(d, after.bytes)
    expect(d.getText('t').length).toBe(0)
  })
})
