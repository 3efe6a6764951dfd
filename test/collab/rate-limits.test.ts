// Rate limits: a socket flooding valid frames is closed with 1008 (messages or bytes per second),
// while a fast typist with a cursor and a large paste never notice; per client address, upgrade
// attempts and failed authentications (collab tokens, API keys) are refused with 429 + Retry-After.
import WebSocket from 'ws'
import * as Y from 'yjs'
import { afterEach, describe, expect, it } from 'vitest'
import { CLOSE } from '@tandem/protocol/close-codes'
import { encodeUpdate } from '@tandem/protocol/messages'
import type { Config } from '../../src/infra/config.js'
import { rawClient } from '../helpers/raw-client.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

async function start(overrides: Partial<Config> = {}, api = false): Promise<Harness> {
  h = await startTandem(overrides, { api })
  return h
}

async function counter(hh: Harness, name: 'rateLimited' | 'messagesIn' | 'closes'): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const v of (await hh.server.deps.metrics[name].get()).values) out[Object.values(v.labels).join('/')] = v.value
  return out
}

/** `n` distinct, valid sync-update frames (one character each). */
function updateFrames(n: number): Uint8Array[] {
  const doc = new Y.Doc()
  const frames: Uint8Array[] = []
  doc.on('update', (u: Uint8Array) => frames.push(encodeUpdate(u)))
  for (let i = 0; i < n; i++) doc.getText('t').insert(i, 'x')
  return frames
}

function upgrade(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter: string | null; ws?: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.on('open', () => resolve({ status: 101, retryAfter: null, ws }))
    ws.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, retryAfter: (res.headers['retry-after'] as string | undefined) ?? null })
      res.resume()
    })
    ws.on('error', (e) => (e.message.includes('Unexpected server response') ? undefined : reject(e)))
  })
}

describe('per-socket rate limits', () => {
  it('one socket flooding ~10k valid frames in 5 s is closed with 1008 once past its burst, and the rest is never processed', async () => {
    const hh = await start()
    const t = await hh.token('acme', 'flood')
    const c = await rawClient(`${hh.wsUrl}/acme/flood?yauth=${t}`)
    const frames = updateFrames(10_000)
    let sent = 0
    let closed = false
    void c.closed.then(() => (closed = true))
    // 50 bursts of 200 frames, 100 ms apart: the flood (9,920 frames in 5 s).
    for (let burst = 0; burst < 50 && !closed; burst++) {
      for (let i = 0; i < 200 && !closed; i++) c.send(frames[sent++]!)
      await new Promise((r) => setTimeout(r, 100))
    }
    const { code, reason } = await c.closed
    expect(code).toBe(CLOSE.policyViolation)
    expect(reason).toMatch(/rate limit: over 200 messages\/s/)
    const processed = (await counter(hh, 'messagesIn'))['sync-update'] ?? 0
    const { config } = hh
    // Burst plus what refilled while the flood lasted (at most 5 s), and not one frame more.
    expect(processed).toBeLessThanOrEqual(config.wsMessageBurst + config.wsMessagesPerSec * 6)
    expect(processed).toBeGreaterThanOrEqual(config.wsMessageBurst)
    expect((await counter(hh, 'rateLimited'))['collab/ws_messages']).toBe(1)
    console.log(
      `flood: ${sent} frames sent, ${processed} processed, ${10_000 - processed} refused (socket closed 1008)`,
    )
  }, 30_000)

  it('a socket over its byte rate is closed with 1008 naming the byte limit', async () => {
    const hh = await start({ maxMessageBytes: 64 * 1024, wsBytesPerSec: 64 * 1024, wsByteBurst: 256 * 1024 })
    const t = await hh.token('acme', 'bytes')
    const c = await rawClient(`${hh.wsUrl}/acme/bytes?yauth=${t}`)
    const doc = new Y.Doc()
    let closed = false
    void c.closed.then(() => (closed = true))
    for (let i = 0; i < 20 && !closed; i++) {
      const before = Y.encodeStateVector(doc)
      doc.getText('t').insert(0, String(i % 10).repeat(48 * 1024))
      c.send(encodeUpdate(Y.encodeStateAsUpdate(doc, before)))
      await new Promise((r) => setTimeout(r, 20))
    }
    const { code, reason } = await c.closed
    expect(code).toBe(CLOSE.policyViolation)
    expect(reason).toMatch(/bytes\/s/)
    expect((await counter(hh, 'rateLimited'))['collab/ws_bytes']).toBe(1)
  }, 30_000)

  it('with the defaults, a fast typist moving a cursor and then pasting 8 MB stays connected and in sync', async () => {
    const hh = await start()
    const t = await hh.token('acme', 'typist')
    const typist = new Y.Doc()
    const p = hh.provider('acme', 'typist', t, typist)
    await synced(p)
    const reader = new Y.Doc()
    await synced(hh.provider('acme', 'typist', t, reader))
    // 40 keystrokes/s for 3 s, each with an awareness (cursor) update: 80 frames/s.
    for (let i = 0; i < 120; i++) {
      typist.getText('t').insert(i, 'k')
      p.awareness.setLocalStateField('cursor', { index: i + 1 })
      await new Promise((r) => setTimeout(r, 25))
    }
    typist.getText('t').insert(120, 'p'.repeat(8 * 1024 * 1024))
    await eventually(() => expect(reader.getText('t').length).toBe(120 + 8 * 1024 * 1024), 30_000)
    expect(p.wsconnected).toBe(true)
    expect(await counter(hh, 'rateLimited')).toEqual({})
    expect((await counter(hh, 'closes'))['1008']).toBeUndefined()
  }, 60_000)
})

describe('per-address limits', () => {
  it('upgrade attempts past the burst get 429 with Retry-After before the upgrade', async () => {
    const hh = await start({ upgradeBurstPerIp: 10, upgradesPerSecPerIp: 1 })
    const t = await hh.token('acme', 'upgrades')
    const started = performance.now()
    const results = await Promise.all(Array.from({ length: 30 }, () => upgrade(`${hh.wsUrl}/acme/upgrades?yauth=${t}`)))
    const elapsedSec = (performance.now() - started) / 1000
    const opened = results.filter((r) => r.status === 101)
    const refused = results.filter((r) => r.status === 429)
    expect(opened.length + refused.length).toBe(30)
    // The burst, plus at most one refill per second of the attempt (generous for slow machines).
    expect(opened.length).toBeGreaterThanOrEqual(10)
    expect(opened.length).toBeLessThanOrEqual(10 + Math.ceil(elapsedSec) + 1)
    expect(refused.length).toBeGreaterThan(0)
    for (const r of refused) expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1)
    expect((await counter(hh, 'rateLimited'))['collab/upgrades']).toBe(refused.length)
    for (const r of opened) r.ws!.close()
  })

  it('after too many bad tokens from one address, even a good token gets 429 on the collab listener', async () => {
    const hh = await start({ authFailuresPerMinPerIp: 3 })
    const good = await hh.token('acme', 'brute')
    for (let i = 0; i < 3; i++)
      expect((await upgrade(`${hh.wsUrl}/acme/brute?yauth=forged.${i}.token`)).status).toBe(401)
    const refused = await upgrade(`${hh.wsUrl}/acme/brute?yauth=${good}`)
    expect(refused.status).toBe(429)
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1)
    expect((await counter(hh, 'rateLimited'))['collab/auth_failures']).toBe(1)
  })

  it('bad tokens on the collab REST API count against the same address, and refuse its REST calls too', async () => {
    const hh = await start({ authFailuresPerMinPerIp: 3 })
    const good = await hh.token('acme', 'rest-brute')
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${hh.httpUrl}/ydoc/v1/acme/rest-brute?yauth=forged.${i}.token`)).status).toBe(401)
    const rest = await fetch(`${hh.httpUrl}/ydoc/v1/acme/rest-brute?yauth=${good}`)
    expect(rest.status).toBe(429)
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect((await upgrade(`${hh.wsUrl}/acme/rest-brute?yauth=${good}`)).status).toBe(429)
  })

  it('after too many bad API keys from one address the api listener answers 429 with Retry-After', async () => {
    const hh = await start({ authFailuresPerMinPerIp: 3 }, true)
    const api = `http://127.0.0.1:${hh.server.apiPort}/api/v0/me/sources`
    for (let i = 0; i < 3; i++)
      expect((await fetch(api, { headers: { 'x-api-key': `tk_wrong_${i}` } })).status).toBe(401)
    const refused = await fetch(api, { headers: { 'x-api-key': 'tk_wrong_again' } })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect((await counter(hh, 'rateLimited'))['api/auth_failures']).toBe(1)
  })
})
