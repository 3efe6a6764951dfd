// The control plane and the signing keys on PostgreSQL, shared by real processes with their own
// data dirs: tool registry PATCHes sent to two servers at once never lose one another; an API key
// made through one works on the other; a collab token minted by one opens the room on the other;
// a key rotation done by yet another process is honoured by both; `tandem admin` works on the
// database with and without a server running.
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { loadPgKeyRing, readPgKeys } from '../../src/auth/keys/postgres.js'
import { runAdmin } from '../../src/cli/admin.js'
import { loadConfig, type Config } from '../../src/infra/config.js'
import { createPgPool } from '../../src/pg/pool.js'
import { grant, makeWorld } from '../api/helpers.js'
import { startPostgres, type PgServer } from '../helpers/postgres.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'
import { spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'

const exec = promisify(execFile)
let pgs: PgServer
let dir: string
let schemas = 0
const running: TandemProcess[] = []
const harnesses: Harness[] = []
const providers: WebsocketProvider[] = []

beforeAll(async () => {
  pgs = await startPostgres()
  dir = await mkdtemp(join(tmpdir(), 'tandem-pgcontrol-'))
})
afterEach(async () => {
  for (const p of providers.splice(0)) p.destroy()
  for (const h of harnesses.splice(0)) await h.close()
  for (const p of running.splice(0)) await p.stop('SIGKILL')
})
afterAll(async () => {
  await pgs?.close()
  await rm(dir, { recursive: true, force: true })
})

/** A fresh schema (a fresh Tandem database) and data dirs for the processes of one test. */
function deployment() {
  const schema = `cp_${++schemas}`
  const env = { TANDEM_POSTGRES_URL: pgs.url, TANDEM_POSTGRES_SCHEMA: schema, TANDEM_LOG_LEVEL: 'warn' }
  const dataDir = (name: string) => join(dir, `${schema}-${name}`)
  return {
    schema,
    env,
    serve: async (name: string) => {
      const p = await spawnTandem(['--data-dir', dataDir(name)], env)
      running.push(p)
      return p
    },
    inProcess: async (name: string) => {
      const h = await startTandem({ postgresUrl: pgs.url, postgresSchema: schema }, {}, dataDir(name))
      harnesses.push(h)
      return h
    },
    config: (name: string): Config =>
      loadConfig([], {}, { dataDir: dataDir(name), postgresUrl: pgs.url, postgresSchema: schema, logLevel: 'silent' }),
  }
}

async function api(port: number, method: string, path: string, o: { key?: string; body?: unknown } = {}) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      ...(o.key ? { 'x-api-key': o.key } : {}),
      ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

async function admin(config: Config, ...args: string[]): Promise<any> {
  const lines: string[] = []
  const code = await runAdmin([...args, '--json'], config, (s) => lines.push(s))
  expect(code).toBe(0)
  return JSON.parse(lines.join('\n'))
}

function provider(wsUrl: string, org: string, doc: string, token: string, ydoc = new Y.Doc()) {
  const p = new WebsocketProvider(`${wsUrl}/${org}`, doc, ydoc, {
    params: { yauth: token },
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    disableBc: true,
  })
  providers.push(p)
  return p
}

describe('control plane on PostgreSQL across processes', () => {
  it('concurrent PATCHes of one tool registry sent to two server processes never lose one another', async () => {
    const d = deployment()
    const [a, b] = await Promise.all([d.serve('a'), d.serve('b')])
    const cfg = d.config('admin')
    await admin(cfg, 'users', 'create', '--email', 'owner@example.com')
    await admin(cfg, 'users', 'create', '--email', 'admin@example.com')
    const ownerKey = (await admin(cfg, 'keys', 'create', '--user', 'owner@example.com')).key
    const adminKey = (await admin(cfg, 'keys', 'create', '--user', 'admin@example.com')).key
    const ws = await admin(cfg, 'workspaces', 'create', '--name', 'Race', '--owner', 'owner@example.com')
    await admin(cfg, 'members', 'set', '--workspace', ws.id, '--user', 'admin@example.com', '--role', 'admin')
    const path = `/api/v0/workspaces/${ws.id}/tool-registry`
    const tools = ['code_interpreter', 'database_query', 'email_send', 'image_generation', 'web_browse']
    const modes = ['no_approval', 'required_with_override', 'required_no_override'] as const
    // Three rounds, each field of each tool PATCHed through a different process than its sibling.
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(
        tools.flatMap((tool_id, i) => [
          api((i + round) % 2 ? a.apiPort : b.apiPort, 'PATCH', path, {
            key: ownerKey,
            body: { tool: { tool_id, enabled: round % 2 === 1 } },
          }),
          api((i + round) % 2 ? b.apiPort : a.apiPort, 'PATCH', path, {
            key: adminKey,
            body: { tool: { tool_id, approval_mode: modes[(i + round) % 3] } },
          }),
        ]),
      )
      expect(results.map((r) => r.status)).toEqual(results.map(() => 200))
      const expected = tools.map((tool_id, i) => ({
        tool_id,
        enabled: round % 2 === 1,
        approval_mode: modes[(i + round) % 3],
      }))
      for (const p of [a, b])
        expect((await api(p.apiPort, 'GET', path, { key: ownerKey })).body.tools).toEqual(expected)
    }
  }, 90_000)

  it('an API key made through one process works on the other, and a collab token minted by one opens the room on the other', async () => {
    const d = deployment()
    const h = await d.inProcess('a')
    const b = await d.serve('b')
    const w = await makeWorld(h, 'shared')
    // the key was written through process a's control plane: process b authenticates it
    const mine = await api(b.apiPort, 'GET', '/api/v0/me/sources', { key: w.keys.member })
    expect(mine.status).toBe(200)
    expect((await api(b.apiPort, 'GET', '/api/v0/me/sources', { key: w.keys.member.slice(0, -1) + 'x' })).status).toBe(
      401,
    )

    // a grant made through a; a token minted by process b (its API) opens the document on process a
    await grant(h, w.doc.id, w.users.owner, 'edit')
    const minted = await api(b.apiPort, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, {
      key: w.keys.owner,
      body: { access: 'edit' },
    })
    expect(minted).toMatchObject({ status: 200, body: { access_type: 'rw' } })
    const ydoc = new Y.Doc()
    const p = provider(`ws://127.0.0.1:${h.server.collabPort}`, w.workspaceId, w.doc.id, minted.body.token, ydoc)
    await synced(p)
    ydoc.getText('default').insert(0, 'written on a with a token from b')
    // ... and once a has stored it, it reads back through b's API (b had not loaded the document:
    // keeping loaded copies of one document in step across processes is the cluster's job)
    await eventually(
      async () => expect((await h.server.store.load(`${w.workspaceId}/${w.doc.id}/main`)).lastSeq).toBeGreaterThan(0),
      20_000,
    )
    const r = await api(b.apiPort, 'GET', `/api/v0/tools/asset/content?asset_id=${w.doc.id}`, { key: w.keys.owner })
    expect(r.body).toEqual({ content: 'written on a with a token from b', comments: null })
  }, 90_000)

  it('keys rotated by another process: new tokens verify on both servers at once, old ones still do', async () => {
    const d = deployment()
    const h = await d.inProcess('a')
    const b = await d.serve('b')
    const pool = createPgPool({ url: pgs.url, schema: d.schema, poolSize: 2 })
    try {
      const before = await loadPgKeyRing(pool)
      expect(h.server.deps.keys.signingKid).toBe(before.signingKid) // one key, generated once for both
      const oldToken = (await mintToken(before, { org: 'acme', doc: 'rot', sub: 'ann@x', acc: 'rw', ttlSec: 600 }))
        .token

      const { stdout } = await exec(process.execPath, ['bin/tandem.js', 'keys', 'rotate'], {
        env: { ...process.env, ...d.env, TANDEM_DATA_DIR: join(dir, 'keys-cli') },
      })
      const newKid = stdout.trim()
      expect(newKid).not.toBe(before.signingKid)
      const listed = (
        await exec(process.execPath, ['bin/tandem.js', 'keys', 'list'], { env: { ...process.env, ...d.env } })
      ).stdout
        .trim()
        .split('\n')
      expect(listed).toEqual([`${newKid} (signing)`, before.signingKid])

      const after = await loadPgKeyRing(pool)
      expect(after.signingKid).toBe(newKid)
      const newToken = (await mintToken(after, { org: 'acme', doc: 'rot', sub: 'ann@x', acc: 'rw', ttlSec: 600 })).token
      expect(h.server.deps.keys.publicKeys.has(newKid)).toBe(false) // a has not reloaded yet
      for (const wsUrl of [`ws://127.0.0.1:${h.server.collabPort}`, b.wsUrl]) {
        for (const token of [newToken, oldToken]) await synced(provider(wsUrl, 'acme', 'rot', token))
      }
      // the unknown kid made a reload: a now signs with the new key too
      expect(h.server.deps.keys.signingKid).toBe(newKid)
      // tandem token signs with the database's current key, and the servers take its tokens
      const cli = await exec(
        process.execPath,
        ['bin/tandem.js', 'token', '--org', 'acme', '--doc', 'rot', '--access', 'r', '--sub', 'cli@x'],
        { env: { ...process.env, ...d.env } },
      )
      const cliToken = cli.stdout.trim()
      expect(JSON.parse(Buffer.from(cliToken.split('.')[0]!, 'base64url').toString()).kid).toBe(newKid)
      await synced(provider(b.wsUrl, 'acme', 'rot', cliToken))
      expect((await readPgKeys(pool)).map((k) => k.kid)).toEqual([newKid, before.signingKid])
    } finally {
      await pool.end()
    }
  }, 90_000)

  it('tandem admin works on the database with no server, and beside a running one, whose API sees the records at once', async () => {
    const d = deployment()
    const cfg = d.config('offline')
    await admin(cfg, 'users', 'create', '--email', 'olga@example.com')
    const key = await admin(cfg, 'keys', 'create', '--user', 'olga@example.com', '--label', 'laptop')
    const ws = await admin(cfg, 'workspaces', 'create', '--name', 'Offline', '--owner', 'olga@example.com')
    const doc = await admin(
      cfg,
      'assets',
      'create',
      '--workspace',
      ws.id,
      '--type',
      'generic_doc',
      '--title',
      'Doc',
      '--text',
      'written offline',
    )
    await admin(cfg, 'grants', 'set', '--asset', doc.id, '--user', 'olga@example.com', '--access', 'edit')
    const thread = await admin(
      cfg,
      'comments',
      'create-thread',
      '--asset',
      doc.id,
      '--anchor-text',
      'offline',
      '--user',
      'olga@example.com',
      '--text',
      'why offline?',
    )
    expect(JSON.stringify(await admin(cfg, 'keys', 'list'))).not.toContain(key.key)

    const s = await d.serve('server')
    const content = await api(
      s.apiPort,
      'GET',
      `/api/v0/tools/asset/content?asset_id=${doc.id}&include_comments=true`,
      { key: key.key },
    )
    expect(content.status).toBe(200)
    expect(content.body.content).toBe('written offline')
    expect(JSON.stringify(content.body.comments)).toContain('why offline?')

    // with the server running, on its own data dir: the command goes straight to the database
    const running = d.config('server')
    const second = await admin(running, 'keys', 'create', '--user', 'olga@example.com', '--label', 'phone')
    expect((await api(s.apiPort, 'GET', '/api/v0/me/sources', { key: second.key })).status).toBe(200)
    await admin(running, 'comments', 'add', '--thread', thread.id, '--user', 'olga@example.com', '--text', 'because')
    await admin(running, 'keys', 'revoke', '--id', key.id)
    expect((await api(s.apiPort, 'GET', '/api/v0/me/sources', { key: key.key })).status).toBe(401)
    // the command line reads the settings too (flags, and the environment for the URL)
    const { stdout } = await exec(
      process.execPath,
      ['bin/tandem.js', 'admin', 'users', 'list', '--postgres-schema', d.schema, '--json'],
      {
        env: { ...process.env, TANDEM_POSTGRES_URL: pgs.url, TANDEM_DATA_DIR: join(dir, 'cli-admin') },
      },
    )
    expect(JSON.parse(stdout)).toEqual([expect.objectContaining({ id: 'olga@example.com' })])
    const listed = await admin(running, 'comments', 'list', '--thread', thread.id)
    expect(listed[0].comments.map((c: { text: string }) => c.text)).toEqual(['why offline?', 'because'])

    // a sweep made by the admin process is picked up and finished by the running server
    const sitesFile = join(dir, `${d.schema}-sites.json`)
    await writeFile(
      sitesFile,
      JSON.stringify({ sites: [1, 2, 3].map((i) => ({ id: `site-${i}`, name: `Site ${i}` })) }),
    )
    await admin(
      running,
      'sources',
      'connect',
      '--user',
      'olga@example.com',
      '--group',
      'sites',
      '--connector',
      'json-file',
      '--sites-file',
      sitesFile,
      '--page-size',
      '2',
    )
    await eventually(async () => {
      const r = await api(s.apiPort, 'GET', '/api/v0/me/sources', { key: second.key })
      expect(r.body.siteProvisioning).toEqual({ provisionedSites: 3, totalSites: 3, status: 'complete' })
    }, 45_000)
  }, 90_000)
})
