// `tandem admin`: directly on a data dir with no server, and through a running server's loopback
// endpoint (LevelDB admits one process); secrets stay out of listings.
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { dataDirPath } from '../../src/infra/data-dir.js'
import { loadConfig, type Config } from '../../src/infra/config.js'
import { startTandem, type Harness } from '../helpers/tandem.js'
import { admin, call } from './helpers.js'

let h: Harness | undefined
let dir: string | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
  if (dir) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

const json = async (config: Config, ...args: string[]) => {
  const r = await admin(config, ...args, '--json')
  expect(r.code).toBe(0)
  return JSON.parse(r.out)
}

describe('tandem admin', () => {
  it('works on a data dir with no server, and the records serve the API once a server starts', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tandem-admin-'))
    const config = loadConfig([], {}, { dataDir: dir, logLevel: 'silent' })
    await json(config, 'users', 'create', '--email', 'Olga@Example.com')
    const key = await json(config, 'keys', 'create', '--user', 'olga@example.com', '--label', 'laptop')
    expect(key.key).toMatch(/^tdm_[0-9a-f]{16}_/)
    const ws = await json(config, 'workspaces', 'create', '--name', 'Offline', '--owner', 'olga@example.com')
    const doc = await json(
      config,
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
    await json(config, 'grants', 'set', '--asset', doc.id, '--user', 'olga@example.com', '--access', 'edit')
    // the key is stored only as a hash
    const listed = await json(config, 'keys', 'list')
    expect(JSON.stringify(listed)).not.toContain(key.key)
    expect(listed).toEqual([
      expect.objectContaining({ id: key.id, userId: 'olga@example.com', label: 'laptop', revokedAtMs: null }),
    ])

    h = await startTandem({}, {}, dir)
    const r = await call(h, 'GET', `/api/v0/tools/asset/content?asset_id=${doc.id}`, { key: key.key })
    expect(r.body).toEqual({ content: 'written offline', comments: null })
  })

  it('goes through the running server’s loopback endpoint, guarded by a 0600 secret file', async () => {
    h = await startTandem()
    const file = dataDirPath(h.dataDir, 'adminEndpoint')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    const info = JSON.parse(await readFile(file, 'utf8')) as { url: string; secret: string }
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/admin$/)
    const wrong = await fetch(info.url, {
      method: 'POST',
      headers: { authorization: 'Bearer nope' },
      body: '{"args":["users","list"]}',
    })
    expect(wrong.status).toBe(401)

    const c = h.config
    await json(c, 'users', 'create', '--email', 'pat@example.com')
    await json(c, 'users', 'create', '--email', 'sam@example.com')
    const { key } = await json(c, 'keys', 'create', '--user', 'pat@example.com')
    const ws = await json(c, 'workspaces', 'create', '--name', 'Live', '--owner', 'pat@example.com', '--id', 'live-ws')
    await json(c, 'members', 'set', '--workspace', 'live-ws', '--user', 'sam@example.com', '--role', 'admin')
    expect(await json(c, 'members', 'list', '--workspace', ws.id)).toEqual([
      { workspaceId: 'live-ws', userId: 'pat@example.com', role: 'owner' },
      { workspaceId: 'live-ws', userId: 'sam@example.com', role: 'admin' },
    ])
    const doc = await json(
      c,
      'assets',
      'create',
      '--workspace',
      'live-ws',
      '--type',
      'generic_doc',
      '--title',
      'Live doc',
      '--text',
      'first line\nsecond line',
      '--default-access',
      'view',
    )
    const db = await json(
      c,
      'assets',
      'create',
      '--workspace',
      'live-ws',
      '--type',
      'database',
      '--title',
      'Orders',
      '--provider',
      'postgres',
      '--connection-url',
      'postgres://u:hunter2@db/x',
    )
    expect(db.database).toEqual({ provider: 'postgres', hasConnectionUrl: true })
    expect(JSON.stringify(await json(c, 'assets', 'list', '--workspace', 'live-ws'))).not.toContain('hunter2')

    const thread = await json(
      c,
      'comments',
      'create-thread',
      '--asset',
      doc.id,
      '--anchor-text',
      'second',
      '--user',
      'sam@example.com',
      '--text',
      'why second?',
    )
    const { id: commentId } = (await json(c, 'comments', 'list', '--thread', thread.id))[0].comments[0]
    await json(
      c,
      'comments',
      'react',
      '--thread',
      thread.id,
      '--comment',
      commentId,
      '--user',
      'pat@example.com',
      '--emoji',
      '👀',
    )
    await json(c, 'comments', 'resolve', '--thread', thread.id)

    const r = await call(h, 'GET', `/api/v0/tools/asset/content?asset_id=${doc.id}&include_comments=true`, { key })
    expect(r.body.content).toBe('first line\nsecond line')
    expect(r.body.comments).toMatchObject([
      {
        id: thread.id,
        level: 'anchor',
        resolved_at: expect.any(String),
        data: { anchor: { text: 'second', root: 'default' } },
        comments: [{ text: 'why second?', reactions: { '👀': ['pat@example.com'] }, user_id: 'sam@example.com' }],
      },
    ])
    // the server holds the LevelDB lock: this only worked through the endpoint
    const revoked = await json(c, 'keys', 'revoke', '--id', key.split('_')[1])
    expect(revoked.revokedAtMs).toEqual(expect.any(Number))
    expect((await call(h, 'GET', '/api/v0/me/sources', { key })).status).toBe(401)
  })

  it('prints a key once in plain output and reports bad usage with exit code 2', async () => {
    h = await startTandem()
    await json(h.config, 'users', 'create', '--email', 'kim@example.com')
    const created = await admin(h.config, 'keys', 'create', '--user', 'kim@example.com')
    expect(created.code).toBe(0)
    expect(created.out).toMatch(/shown once[\s\S]*\ntdm_[0-9a-f]{16}_\S{43}$/)
    expect((await admin(h.config, 'keys', 'create')).code).toBe(2)
    expect((await admin(h.config, 'nouns', 'verb')).code).toBe(2)
    expect((await admin(h.config, 'workspaces', 'create', '--name', 'x', '--owner', 'nobody@example.com')).code).toBe(1)
  })

  it('hashes keys with SHA-256 (the stored hash is not the key)', async () => {
    h = await startTandem()
    await json(h.config, 'users', 'create', '--email', 'lee@example.com')
    const { key, id } = await json(h.config, 'keys', 'create', '--user', 'lee@example.com')
    const rec = await h.server.deps.control.store.get<{ hash: string }>(`apikey/${id}`)
    expect(rec!.hash).toBe(createHash('sha256').update(key).digest('hex'))
  })
})
