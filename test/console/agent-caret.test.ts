// The console in Chromium shows an agent that edits over REST: its caret with its name and an
// "agent" badge at the text it wrote, dashed apart from people's, and the agent listed among the
// people present; the caret goes when the agent is done. Screenshot for review.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/auth/capability.js'
import { seedDemo } from '../../src/demo/world.js'
import { call } from '../api/helpers.js'
import { hasChromium, launchChromium, newTab, screenshot } from '../helpers/browser.js'
import { startTandem, type Harness } from '../helpers/tandem.js'
import { signIn } from './page.js'

const DOC = 'demo-welcome'

let browser: Browser
let h: Harness
let dir: string
let demoKey: string

beforeAll(async () => {
  if (!hasChromium()) return
  dir = await mkdtemp(join(tmpdir(), 'tandem-agent-caret-'))
  h = await startTandem({}, {}, dir)
  demoKey = (await seedDemo(h.server.deps)).apiKey
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await h?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe.skipIf(!hasChromium())('an agent in the console', () => {
  it('shows its named caret at the text it wrote, lists it as an agent, and drops it when it is done', async () => {
    const minted = await call(h, 'POST', `/api/v0/assets/${DOC}/collab-token`, {
      key: demoKey,
      body: { access: 'edit' },
    })
    const { org, doc_id } = minted.body as { org: string; doc_id: string }
    const { token } = await mintToken(h.server.deps.keys, {
      org,
      doc: doc_id,
      sub: 'demo@tandem.local',
      acc: 'rw',
      agent: true,
      session: { id: 'console-test', name: 'Writer bot', model: 'test-model' },
      ttlSec: 600,
    })
    const content = (method: string, body?: unknown, route = 'content') =>
      fetch(`${h.httpUrl}/${route}/v1/${org}/${doc_id}?yauth=${token}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      })

    const tab = await newTab(browser)
    await signIn(tab.page, `http://127.0.0.1:${h.server.apiPort}/#/w/demo/a/${DOC}`, demoKey)
    await tab.page.locator('.status-line[data-state="synced"]').waitFor()
    await tab.page.locator('.ProseMirror').waitFor()

    const read = (await (await content('GET')).json()) as { base: string }
    const wrote = await content('PATCH', {
      base: read.base,
      edits: [{ insert: 'An agent wrote this paragraph.', at: 'end' }],
    })
    expect(wrote.status).toBe(200)

    const caret = tab.page.locator('.ProseMirror .remote-caret.agent-caret')
    await caret.waitFor()
    expect(await caret.locator('.remote-name').innerText()).toMatch(/Writer bot\s*agent/i)
    // the caret sits at the end of the paragraph it wrote
    const where = await tab.page.evaluate(`(() => {
      const c = document.querySelector('.ProseMirror .agent-caret')
      const block = c.closest('.ProseMirror > *')
      const before = document.createRange()
      before.setStart(block, 0)
      before.setEndBefore(c)
      const copy = block.cloneNode(true)
      for (const r of copy.querySelectorAll('.remote-caret')) r.remove()
      return { text: copy.textContent, before: before.toString() }
    })()`)
    expect(where).toEqual({ text: 'An agent wrote this paragraph.', before: 'An agent wrote this paragraph.' })
    await tab.page.locator('.people .person.agent', { hasText: 'Writer bot' }).waitFor()
    await screenshot(tab.page, 'agent-caret')

    expect((await content('DELETE', undefined, 'presence')).status).toBe(204)
    await tab.page.locator('.ProseMirror .agent-caret').waitFor({ state: 'detached' })
    await tab.page.locator('.people .person.agent').waitFor({ state: 'detached' })
    expect(tab.errors).toEqual([])
  })
})
