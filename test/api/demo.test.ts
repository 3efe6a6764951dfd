// `tandem serve --demo`: the world loads once per data dir, the same key comes back at every start,
// and every endpoint answers with it.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { seedDemo } from '../../src/demo/world.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'
import { call } from './helpers.js'

let h: Harness | undefined
let dir: string | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
  if (dir) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

describe('demo world', () => {
  it('loads once per data dir, returns the same key on every start, and serves every endpoint', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tandem-demo-'))
    h = await startTandem({ siteSweepDelayMs: 0 }, {}, dir)
    const first = await seedDemo(h.server.deps)
    expect(first.assets).toEqual(
      expect.arrayContaining([{ type: 'generic_doc', id: 'demo-welcome', title: 'Welcome to Tandem' }]),
    )
    const key = first.apiKey

    const content = await call(h, 'GET', '/api/v0/tools/asset/content?asset_id=demo-welcome&include_comments=true', {
      key,
    })
    expect(content.status).toBe(200)
    expect(content.body.content.split('\n')[0]).toBe('Welcome to Tandem')
    const threads = content.body.comments as {
      level: string
      resolved_at: string | null
      data: { anchor?: { text: string } }
      comments: { reactions: Record<string, string[]> }[]
    }[]
    expect(threads).toHaveLength(3)
    expect(threads.filter((t) => t.level === 'anchor').map((t) => t.data.anchor!.text)).toEqual([
      'anchored to a range of text',
    ])
    expect(threads.filter((t) => t.resolved_at !== null)).toHaveLength(1)
    expect(threads.some((t) => t.comments.some((c) => Object.keys(c.reactions).length > 0))).toBe(true)
    expect(threads[2]!.comments).toHaveLength(1) // the deleted comment is left out

    expect((await call(h, 'GET', `/api/v0/workspaces/${first.workspaceId}/tool-registry`, { key })).status).toBe(200)
    expect(
      (await call(h, 'POST', '/api/v0/assets/demo-welcome/collab-token', { key, body: { access: 'edit' } })).body
        .access_type,
    ).toBe('rw')
    await eventually(async () => {
      const r = await call(h!, 'GET', '/api/v0/me/sources', { key })
      expect(r.body).toEqual({
        groupCounts: { mail: 1, files: 1, sites: 1, chats: 1 },
        totalSources: 4,
        siteProvisioning: { provisionedSites: 120, totalSites: 120, status: 'complete' },
      })
    })

    await h.close()
    h = await startTandem({ siteSweepDelayMs: 0 }, {}, dir)
    const again = await seedDemo(h.server.deps)
    expect(again).toEqual(first)
    const after = await call(h, 'GET', '/api/v0/tools/asset/content?asset_id=demo-welcome&include_comments=true', {
      key,
    })
    expect(after.body).toEqual(content.body)
  })
})
