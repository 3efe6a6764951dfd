// Source readiness (spec 4.8) with a real site sweep through the Microsoft Graph connector against a
// local fake Graph server: paging by @odata.nextLink, throttling, enumeration phase, completion,
// the window after completion, and resumption after a restart.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runAdmin } from '../../src/cli/admin.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'
import { call, makeWorld } from './helpers.js'

interface FakeGraph {
  base: string
  requests: { url: string; auth: string }[]
  /** Page 2 waits for this; resolve to let it through. */
  releasePage2(): void
  close(): Promise<void>
}

async function fakeGraph(opts: { throttleFirst?: boolean } = {}): Promise<FakeGraph> {
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  let throttled = false
  const requests: FakeGraph['requests'] = []
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://x')
    requests.push({ url: req.url!, auth: req.headers.authorization ?? '' })
    if (req.headers.authorization !== 'Bearer graph-secret') {
      res.writeHead(401).end()
      return
    }
    if (opts.throttleFirst && !throttled) {
      throttled = true
      res.writeHead(429, { 'retry-after': '0' }).end()
      return
    }
    const page = url.searchParams.get('$skiptoken') ?? '1'
    if (url.pathname !== '/v1.0/sites' || url.searchParams.get('search') !== '*') {
      res.writeHead(404).end()
      return
    }
    if (page === '2') await gate
    const sites = page === '1' ? [1, 2, 3] : [4, 5]
    const body: Record<string, unknown> = {
      value: sites.map((i) => ({
        id: `contoso.example,${i}`,
        displayName: `Site ${i}`,
        webUrl: `https://contoso.example/sites/${i}`,
      })),
    }
    if (page === '1') body['@odata.nextLink'] = `${base}/sites?search=*&$skiptoken=2`
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1.0`
  return {
    base,
    requests,
    releasePage2: () => release(),
    close: () =>
      new Promise((r) => {
        release()
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

let h: Harness | undefined
let graph: FakeGraph | undefined
afterEach(async () => {
  await h?.close()
  await graph?.close()
  h = undefined
  graph = undefined
})

const admin = async (h: Harness, args: string[]) => {
  const out: string[] = []
  const code = await runAdmin([...args, '--json'], h.config, (s) => out.push(s))
  expect(code).toBe(0)
  return JSON.parse(out.join('\n'))
}

const connectGraph = (h: Harness, user: string, base: string) =>
  admin(h, [
    'sources',
    'connect',
    '--user',
    user,
    '--group',
    'sites',
    '--name',
    'SharePoint',
    '--connector',
    'graph',
    '--graph-url',
    base,
    '--graph-token',
    'graph-secret',
    '--page-size',
    '3',
  ])

describe('source readiness', () => {
  it('counts the caller’s sources per group, with no provisioning signal when no sweep ran', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'counts')
    const empty = await call(h, 'GET', '/api/v0/me/sources', { key: w.keys.member })
    expect(empty).toMatchObject({
      status: 200,
      body: { groupCounts: { mail: 0, files: 0, sites: 0, chats: 0 }, totalSources: 0, siteProvisioning: null },
    })
    for (const group of ['mail', 'mail', 'chats', 'files'])
      await admin(h, ['sources', 'connect', '--user', w.users.member, '--group', group])
    await admin(h, ['sources', 'connect', '--user', w.users.owner, '--group', 'sites'])
    const r = await call(h, 'GET', '/api/v0/me/sources', { key: w.keys.member })
    expect(r.body).toEqual({
      groupCounts: { mail: 2, files: 1, sites: 0, chats: 1 },
      totalSources: 4,
      siteProvisioning: null,
    })
  })

  it('sweeps Graph sites page by page: totalSites 0 while enumerating, then complete, then gone after the window', async () => {
    let clock = 1_800_000_000_000
    graph = await fakeGraph({ throttleFirst: true })
    h = await startTandem({ siteSweepDelayMs: 0, siteProvisioningWindowSec: 60 }, { now: () => clock })
    const w = await makeWorld(h, 'sweep')
    const connected = await connectGraph(h, w.users.member, graph.base)
    expect(JSON.stringify(connected)).not.toContain('graph-secret')
    const readiness = async () => (await call(h!, 'GET', '/api/v0/me/sources', { key: w.keys.member })).body

    await eventually(() => expect(graph!.requests.some((r) => r.url.includes('skiptoken=2'))).toBe(true))
    expect(await readiness()).toEqual({
      groupCounts: { mail: 0, files: 0, sites: 1, chats: 0 },
      totalSources: 1,
      siteProvisioning: { provisionedSites: 0, totalSites: 0, status: 'in_progress' },
    })
    graph.releasePage2()
    await eventually(async () =>
      expect((await readiness()).siteProvisioning).toEqual({ provisionedSites: 5, totalSites: 5, status: 'complete' }),
    )
    // throttled once (429, Retry-After 0), then pages 1 and 2, always with the bearer token
    expect(graph.requests.map((r) => (r.url.includes('skiptoken=2') ? 'page2' : 'page1'))).toEqual([
      'page1',
      'page1',
      'page2',
    ])
    expect(graph.requests.every((r) => r.auth === 'Bearer graph-secret')).toBe(true)
    expect(graph.requests[0]!.url).toContain('%24top=3')

    clock += 59_000
    expect((await readiness()).siteProvisioning).toEqual({ provisionedSites: 5, totalSites: 5, status: 'complete' })
    clock += 2_000
    expect((await readiness()).siteProvisioning).toBeNull()
  })

  it('resumes an interrupted sweep from its persisted cursor after a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tandem-sweep-'))
    try {
      graph = await fakeGraph()
      h = await startTandem({ siteSweepDelayMs: 0 }, {}, dir)
      const w = await makeWorld(h, 'resume')
      await connectGraph(h, w.users.owner, graph.base)
      await eventually(() => expect(graph!.requests.filter((r) => r.url.includes('skiptoken=2'))).toHaveLength(1))
      await h.close() // page 2 is still pending: the sweep stops mid-enumeration

      graph.releasePage2()
      h = await startTandem({ siteSweepDelayMs: 0 }, {}, dir)
      await eventually(async () => {
        const r = await call(h!, 'GET', '/api/v0/me/sources', { key: w.keys.owner })
        expect(r.body.siteProvisioning).toEqual({ provisionedSites: 5, totalSites: 5, status: 'complete' })
      })
      // page 1 was listed once, before the restart; the second server asked for page 2 only
      expect(graph.requests.map((r) => (r.url.includes('skiptoken=2') ? 'page2' : 'page1'))).toEqual([
        'page1',
        'page2',
        'page2',
      ])
      const sweeps = await admin(h, ['sweeps', 'list', '--user', w.users.owner])
      expect(sweeps).toMatchObject([{ phase: 'complete', enumeratedSites: 5, provisionedSites: 5 }])
      await h.close()
      h = undefined
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
