import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { attempt } from './deliver.js'
import { isPrivateAddress, urlProblem } from './url-guard.js'

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()))
  server = undefined
})

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ port: number; hits: string[] }> {
  const hits: string[] = []
  server = createServer((req, res) => {
    hits.push(req.url ?? '')
    handler!(req, res)
  })
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r))
  return { port: (server.address() as AddressInfo).port, hits }
}

const o = { timeoutMs: 2000, allowPrivate: true }

describe('one delivery attempt', () => {
  it('does not follow a redirect: the 3xx is the answer, and not a success', async () => {
    const { port, hits } = await serve((req, res) => {
      res.writeHead(req.url === '/hook' ? 307 : 204, { location: '/elsewhere' })
      res.end()
    })
    expect(await attempt(`http://127.0.0.1:${port}/hook`, {}, '{}', o)).toEqual({
      ok: false,
      statusCode: 307,
      error: null,
    })
    expect(hits).toEqual(['/hook'])
  })

  it('stops reading a huge answer after 64 KiB and still takes its status', async () => {
    let written = 0
    const { port } = await serve((_req, res) => {
      res.writeHead(200)
      const chunk = Buffer.alloc(64 * 1024, 120)
      const pump = () => {
        while (written < 1024 * 1024 * 1024 && res.write(chunk)) written += chunk.length
        if (written < 1024 * 1024 * 1024) res.once('drain', pump)
      }
      res.on('close', () => res.removeAllListeners('drain'))
      pump()
    })
    expect(await attempt(`http://127.0.0.1:${port}/`, {}, '{}', o)).toEqual({ ok: true, statusCode: 200, error: null })
    expect(written).toBeLessThan(1024 * 1024 * 1024)
  })

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const { port } = await serve(() => {})
    const r = await attempt(`http://127.0.0.1:${port}/`, {}, '{}', { timeoutMs: 200, allowPrivate: true })
    expect(r).toMatchObject({ ok: false, statusCode: null })
    expect(r.error).toMatch(/no answer within 200 ms/)
  })

  it('refuses, at connection time, a name that resolves to a private address', async () => {
    const { port, hits } = await serve((_req, res) => res.end())
    const r = await attempt(`http://localhost:${port}/`, {}, '{}', { timeoutMs: 2000, allowPrivate: false })
    expect(r).toMatchObject({ ok: false, statusCode: null })
    expect(r.error).toMatch(/private address/)
    expect(hits).toEqual([])
  })
})

describe('webhook URL rules', () => {
  it('classifies addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true)
    }
    for (const a of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(a), a).toBe(false)
  })

  it('accepts http and https only, and no credentials in the URL', async () => {
    expect(await urlProblem('https://93.184.215.14/x', false)).toBeNull()
    expect(await urlProblem('ftp://93.184.215.14/x', false)).toMatch(/scheme/)
    expect(await urlProblem('not a url', false)).toMatch(/not valid/)
    expect(await urlProblem('https://u:p@93.184.215.14/x', false)).toMatch(/credentials/)
    expect(await urlProblem('http://127.0.0.1/x', true)).toBeNull()
  })
})

describe('stopping', () => {
  it('an attempt in flight ends at once when its signal aborts', async () => {
    const { port } = await serve(() => {})
    const stop = new AbortController()
    const pending = attempt(`http://127.0.0.1:${port}/`, {}, '{}', {
      timeoutMs: 60_000,
      allowPrivate: true,
      signal: stop.signal,
    })
    stop.abort()
    expect(await pending).toEqual({ ok: false, statusCode: null, error: 'aborted' })
  })
})
