// `tandem admin webhooks create|list|delete`: offline on a data dir and through a running server,
// under the same URL rules as the API; the secret is printed by create only.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/infra/config.js'
import { admin, call } from '../api/helpers.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness | undefined
let dir: string | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
  if (dir) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

describe('tandem admin webhooks', () => {
  it('creates, lists and deletes webhooks offline and through a running server', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tandem-admin-webhooks-'))
    const config = loadConfig([], {}, { dataDir: dir, logLevel: 'silent' })
    await admin(config, 'users', 'create', '--email', 'olga@example.com')
    const key = JSON.parse((await admin(config, 'keys', 'create', '--user', 'olga@example.com', '--json')).out)
      .key as string
    await admin(config, 'workspaces', 'create', '--name', 'w', '--owner', 'olga@example.com', '--id', 'ws-admin')

    const refused = await admin(
      config,
      'webhooks',
      'create',
      '--workspace',
      'ws-admin',
      '--url',
      'http://127.0.0.1:9/x',
      '--events',
      'rows.inserted',
    )
    expect(refused.code).not.toBe(0)
    expect(
      (
        await admin(
          config,
          'webhooks',
          'create',
          '--workspace',
          'ws-admin',
          '--url',
          'https://93.184.215.14/x',
          '--events',
          'nope',
        )
      ).code,
    ).not.toBe(0)

    const created = await admin(
      config,
      'webhooks',
      'create',
      '--workspace',
      'ws-admin',
      '--url',
      'https://93.184.215.14/x',
      '--events',
      'document.updated,rows.inserted',
    )
    expect(created.code).toBe(0)
    expect(created.out).toMatch(/\nwhsec_\S+$/)
    const listed = await admin(config, 'webhooks', 'list', '--workspace', 'ws-admin', '--json')
    expect(listed.out).not.toContain('whsec_')
    const [hook] = JSON.parse(listed.out) as { id: string; events: string[] }[]
    expect(hook!.events).toEqual(['document.updated', 'rows.inserted'])

    // through the server: the API sees it, and the admin delete reaches the running server
    h = await startTandem({ dataDir: dir, webhookAllowPrivate: true }, {}, dir)
    const viaApi = await call(h, 'GET', '/api/v0/workspaces/ws-admin/webhooks', { key })
    expect(viaApi.body.webhooks.map((w: { id: string }) => w.id)).toEqual([hook!.id])
    expect(
      (
        await admin(
          h.config,
          'webhooks',
          'create',
          '--workspace',
          'ws-admin',
          '--url',
          'http://127.0.0.1:9/x',
          '--events',
          'rows.inserted',
        )
      ).code,
    ).toBe(0)
    expect((await admin(h.config, 'webhooks', 'delete', '--workspace', 'ws-admin', '--id', hook!.id)).code).toBe(0)
    const after = await call(h, 'GET', '/api/v0/workspaces/ws-admin/webhooks', { key })
    expect(after.body.webhooks.map((w: { url: string }) => w.url)).toEqual(['http://127.0.0.1:9/x'])
  })
})
