// `tandem loadtest` against real servers: one node with the operator's signing keys, one with an
// API key (two worker processes), the three-node cluster behind the shipped HAProxy config; the
// report files; a missed threshold (exit 1); bad input and refused credentials (exit 2, one line,
// before any load). Every run is bounded: a few seconds of load from at most 30 sockets.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateSigningJwk } from '../../src/auth/keys/ring.js'
import { runLoadtest } from '../../src/cli/loadtest.js'
import { seedDemo } from '../../src/demo/world.js'
import type { Report } from '../../src/loadtest/report.js'
import { freePort } from '../helpers/ports.js'
import { startTandem, type Harness } from '../helpers/tandem.js'
import { startProcessCluster, type ProcessCluster } from '../cluster/process-cluster.js'

const BIN = new URL('../../bin/tandem.js', import.meta.url).pathname

/** The command in this process: exit code, stdout, stderr. */
async function loadtest(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await runLoadtest(argv, {}, { out: (s) => (out += s), err: (s) => (err += s) })
  return { code, out, err }
}

/** What the command said on stderr, without bin/tandem.js's notice about a stale production bundle. */
const said = (err: string) => err.replace(/^dist\/tandem\.mjs is older.*\n/gm, '')

/** The command as a process (workers fork it). */
function loadtestProcess(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'loadtest', ...argv], { timeout: 90_000 }, (e, out, err) =>
      resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }),
    )
  })
}

let dir: string
let keysFile: string
let h: Harness
let apiKey: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tandem-loadtest-'))
  keysFile = join(dir, 'keys.json')
  await writeFile(keysFile, JSON.stringify({ keys: [await generateSigningJwk()] }))
  h = await startTandem({ signingKeys: keysFile })
  apiKey = (await seedDemo(h.server.deps)).apiKey
}, 60_000)
afterAll(async () => {
  await h?.close()
  await rm(dir, { recursive: true, force: true })
})

const apiUrl = () => `http://127.0.0.1:${h.server.apiPort}`

/** WebSocket messages a collab listener has received (all types). */
async function messagesIn(httpUrl: string): Promise<number> {
  const text = await (await fetch(`${httpUrl}/metrics`)).text()
  return [...text.matchAll(/^tandem_ws_messages_in_total\{[^}]*\} (\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0)
}

describe('tandem loadtest on one node', () => {
  it('with signing keys: every update delivered, the report on stdout, in JSON and in Markdown with its chart', async () => {
    const json = join(dir, 'fanout.json')
    const md = join(dir, 'out', 'fanout.md')
    const r = await loadtest(
      '--ws-url',
      h.wsUrl,
      '--signing-keys',
      keysFile,
      '--scenario',
      'fanout',
      '--clients',
      '12',
      '--rate',
      '4',
      '--duration',
      '2',
      '--json',
      json,
      '--markdown',
      md,
      '--min-delivery-ratio',
      '1',
      '--max-errors',
      '0',
    )
    expect(r.err).not.toContain('threshold missed')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^delivered\s+\d+ of \d+ expected \(ratio 1\)/m)
    expect(r.err).toMatch(/^\d+ s: connected 12\/12, sent \d+, delivered \d+\/s/m) // the progress line
    const report = JSON.parse(await readFile(json, 'utf8')) as Report
    expect(report).toMatchObject({
      scenario: 'fanout',
      clients: 12,
      connected: 12,
      deliveryRatio: 1,
      errors: 0,
      closes: {},
    })
    expect(report.sent).toBeGreaterThanOrEqual(12 * 4 * 2 * 0.8)
    expect(report.expected).toBe(report.sent * 11)
    expect(report.delivered).toBe(report.expected)
    expect(report.latencyMs.p99).toBeGreaterThan(0)
    expect(report.latencyMs.p50!).toBeLessThanOrEqual(report.latencyMs.p95!)
    expect(report.connectMs.max).toBeGreaterThan(0)
    expect(report.timeline.length).toBeGreaterThanOrEqual(2)
    const markdown = await readFile(md, 'utf8')
    expect(markdown).toContain('![latency per second](fanout.svg)')
    expect(markdown).toMatch(/\| delivered \| \d+ of \d+ expected \(ratio 1\)/)
    const svg = await readFile(join(dir, 'out', 'fanout.svg'), 'utf8')
    expect(svg).toMatch(/^<svg [^>]+>/)
    expect(svg).toContain('<polyline')
  }, 60_000)

  it('with an API key and two worker processes: typing in a demo document, awareness included', async () => {
    const json = join(dir, 'typing.json')
    const r = await loadtestProcess(
      '--api-url',
      apiUrl(),
      '--api-key',
      apiKey,
      '--assets',
      'demo-welcome',
      '--scenario',
      'typing',
      '--clients',
      '6',
      '--duration',
      '3',
      '--workers',
      '2',
      '--json',
      json,
      '--quiet',
    )
    expect(said(r.err)).toBe('')
    expect(r.code).toBe(0)
    const report = JSON.parse(await readFile(json, 'utf8')) as Report
    expect(report).toMatchObject({
      scenario: 'typing',
      workers: 2,
      clients: 6,
      connected: 6,
      deliveryRatio: 1,
      errors: 0,
    })
    expect(report.sent).toBeGreaterThan(6)
    expect(report.awareness!.sent).toBeGreaterThan(0)
    expect(report.awareness!.delivered).toBe(report.awareness!.expected)
  }, 90_000)

  it("presence: cursors, idle renewals and two writers in one room; every writer's update delivered, cursors seen, no errors", async () => {
    const json = join(dir, 'presence.json')
    const r = await loadtest(
      '--ws-url',
      h.wsUrl,
      '--signing-keys',
      keysFile,
      '--scenario',
      'presence',
      '--clients',
      '30',
      '--active',
      '5',
      '--duration',
      '3',
      '--json',
      json,
      '--min-delivery-ratio',
      '1',
      '--max-errors',
      '0',
    )
    expect(r.err).not.toContain('threshold missed')
    expect(r.code).toBe(0)
    const report = JSON.parse(await readFile(json, 'utf8')) as Report
    expect(report).toMatchObject({
      scenario: 'presence',
      clients: 30,
      connected: 30,
      deliveryRatio: 1,
      errors: 0,
      closes: {},
    })
    expect(report.sent).toBeGreaterThan(0) // the two writers
    expect(report.expected).toBe(report.sent * 29)
    expect(report.awareness!.sent).toBeGreaterThan(5 * 5 * 3 * 0.8) // the cursors, and renewals
    expect(report.awareness!.delivered).toBeGreaterThan(0)
  }, 60_000)

  it('with Hocuspocus clients (--protocol hocuspocus): every update delivered, Hocuspocus frames on the wire', async () => {
    const json = join(dir, 'hocuspocus.json')
    const r = await loadtest(
      '--ws-url',
      h.wsUrl,
      '--signing-keys',
      keysFile,
      '--protocol',
      'hocuspocus',
      '--scenario',
      'rooms',
      '--rooms',
      '4',
      '--clients',
      '12',
      '--rate',
      '4',
      '--duration',
      '2',
      '--json',
      json,
      '--quiet',
      '--min-delivery-ratio',
      '1',
      '--max-errors',
      '0',
    )
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^scenario\s+rooms \(hocuspocus clients\)/m)
    const report = JSON.parse(await readFile(json, 'utf8')) as Report
    expect(report).toMatchObject({
      scenario: 'rooms',
      protocol: 'hocuspocus',
      clients: 12,
      connected: 12,
      deliveryRatio: 1,
      errors: 0,
    })
    expect(report.delivered).toBe(report.sent * 2) // three clients a room: each update reaches two
    // and the server saw Hocuspocus frames, not y-websocket ones
    const metrics = await (await fetch(`${h.httpUrl}/metrics`)).text()
    expect(metrics).toMatch(/^tandem_ws_messages_in_total\{[^}]*type="hocuspocus-sync-update"[^}]*\} [1-9]/m)
  }, 60_000)

  it('exits 1 and names the threshold it missed', async () => {
    const r = await loadtest(
      '--ws-url',
      h.wsUrl,
      '--signing-keys',
      keysFile,
      '--scenario',
      'rooms',
      '--rooms',
      '3',
      '--clients',
      '6',
      '--duration',
      '1',
      '--quiet',
      '--max-p99-ms',
      '0',
      '--min-delivery-ratio',
      '0.5',
    )
    expect(r.code).toBe(1)
    expect(r.err.trim().split('\n')).toEqual([
      expect.stringMatching(/^tandem loadtest: threshold missed: --max-p99-ms 0, measured \d/),
    ])
    expect(r.out).toMatch(/--max-p99-ms 0\s+MISSED/)
    expect(r.out).toMatch(/--min-delivery-ratio 0.5\s+met/)
  }, 30_000)

  it('refuses bad input and refused credentials in one line with exit 2, before any load', async () => {
    const closed = await freePort()
    const other = join(dir, 'other-keys.json')
    await writeFile(other, JSON.stringify({ keys: [await generateSigningJwk()] }))
    const cases: [string[], RegExp][] = [
      [['--ws-url', 'http://127.0.0.1:1', '--signing-keys', keysFile], /--ws-url: expected ws:\/\/ or wss:\/\//],
      [['--ws-url', h.wsUrl], /--signing-keys: required/],
      [['--ws-url', h.wsUrl, '--signing-keys', keysFile, '--clients', 'many'], /--clients: expected an integer/],
      [['--ws-url', h.wsUrl, '--signing-keys', keysFile, '--scenario', 'flood'], /--scenario: expected one of/],
      [
        ['--ws-url', `ws://127.0.0.1:${closed}`, '--signing-keys', keysFile],
        /cannot reach ws:\/\/127.0.0.1:\d+: ECONNREFUSED/,
      ],
      [['--ws-url', h.wsUrl, '--signing-keys', join(dir, 'missing.json')], /--signing-keys .*missing.json: ENOENT/],
      [
        ['--ws-url', h.wsUrl, '--signing-keys', other],
        /refused the token \(upgrade refused: HTTP 401\): are --signing-keys/,
      ],
      [
        ['--api-url', apiUrl(), '--api-key', 'tdm_0000000000000000_nope', '--assets', 'demo-welcome'],
        /--api-key refused by http:\/\/127.0.0.1:\d+ \(401 /,
      ],
      [
        ['--api-url', apiUrl(), '--api-key', apiKey, '--assets', 'no-such-doc'],
        /--assets no-such-doc: collab-token refused \(404 Asset not found\)/,
      ],
      [
        ['--api-url', apiUrl(), '--api-key', apiKey, '--assets', 'demo-shop'],
        /--assets demo-shop: collab-token refused/,
      ],
    ]
    const before = await messagesIn(h.httpUrl)
    for (const [argv, line] of cases) {
      const r = await loadtest(...argv)
      expect(r.code, argv.join(' ')).toBe(2)
      expect(r.out).toBe('')
      expect(r.err.split('\n')).toEqual([expect.stringMatching(line), ''])
    }
    // no load: not one WebSocket message reached the server
    expect(await messagesIn(h.httpUrl)).toBe(before)
  }, 60_000)

  it('lists every flag in --help', async () => {
    const r = await loadtest('--help')
    expect(r.code).toBe(0)
    for (const flag of [
      'ws-url',
      'signing-keys',
      'org',
      'api-url',
      'api-key',
      'assets',
      'workspace',
      'scenario',
      'rooms',
      'clients',
      'clients-per-room',
      'rate',
      'duration',
      'workers',
      'json',
      'markdown',
      'max-p99-ms',
      'min-delivery-ratio',
      'max-errors',
    ]) {
      expect(r.out).toContain(`--${flag} `)
    }
  })
})

describe('tandem loadtest on the cluster', () => {
  let c: ProcessCluster
  beforeAll(async () => {
    c = await startProcessCluster(3, { TANDEM_TRUSTED_PROXIES: '127.0.0.1' }, { lb: 'shipped' })
  }, 120_000)
  afterAll(async () => {
    await c?.close()
  })

  it('through the shipped HAProxy config: rooms spread over three nodes, every update delivered', async () => {
    const json = join(dir, 'cluster.json')
    // The documents' names are fixed: HAProxy's hash puts these six two on each node. The default
    // prefix (the time to the second) puts all six on one node in about 1 run of 300.
    const r = await loadtestProcess(
      '--ws-url',
      c.lb.wsUrl,
      '--signing-keys',
      c.keysFile,
      '--org',
      'acme',
      '--doc-prefix',
      'loadtest-cluster',
      '--scenario',
      'rooms',
      '--rooms',
      '6',
      '--clients',
      '24',
      '--duration',
      '3',
      '--json',
      json,
      '--quiet',
      '--min-delivery-ratio',
      '1',
      '--max-errors',
      '0',
    )
    expect(said(r.err)).toBe('')
    expect(r.code).toBe(0)
    const report = JSON.parse(await readFile(json, 'utf8')) as Report
    expect(report).toMatchObject({ rooms: 6, clients: 24, connected: 24, deliveryRatio: 1, errors: 0 })
    // every node served rooms (a node its health checks took out of rotation would not have)
    const loaded = await Promise.all(c.nodes.map((n) => messagesIn(n!.httpUrl)))
    expect(
      loaded.every((n) => n > 0),
      `messages per node ${loaded}; HAProxy: ${JSON.stringify(await c.lb.serverStates())}`,
    ).toBe(true)
  }, 120_000)
})
