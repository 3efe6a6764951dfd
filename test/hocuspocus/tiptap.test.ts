// In Chromium: a Tiptap editor (@tiptap/core, starter-kit, extension-collaboration) on a
// HocuspocusProvider at Tandem's root URL, and the console's ProseMirror editor (y-websocket) typing
// into one document; both show the same text.
import { build } from 'esbuild'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedDemo } from '../../src/demo/world.js'
import { call } from '../api/helpers.js'
import { hasChromium, launchChromium, newTab, screenshot } from '../helpers/browser.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'
import { signIn, textOf } from '../console/page.js'

const DOC = 'demo-welcome'

let browser: Browser
let h: Harness
let dir: string
let bundle: string
let demoKey: string

beforeAll(async () => {
  if (!hasChromium()) return
  dir = await mkdtemp(join(tmpdir(), 'tandem-tiptap-'))
  h = await startTandem({}, {}, dir)
  demoKey = (await seedDemo(h.server.deps)).apiKey
  const out = await build({
    entryPoints: [join(import.meta.dirname, 'tiptap-page.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  })
  bundle = out.outputFiles[0]!.text
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await h?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe.skipIf(!hasChromium())('Tiptap on Hocuspocus beside the console editor', () => {
  it('both editors type into one document and show the same text', async () => {
    const minted = await call(h, 'POST', `/api/v0/assets/${DOC}/collab-token`, {
      key: demoKey,
      body: { access: 'edit' },
    })
    expect(minted.status).toBe(200)
    const { token, org, doc_id } = minted.body as { token: string; org: string; doc_id: string }

    const consoleTab = await newTab(browser)
    await signIn(consoleTab.page, `http://127.0.0.1:${h.server.apiPort}/#/w/demo/a/${DOC}`, demoKey)
    await consoleTab.page.locator('.status-line[data-state="synced"]').waitFor()
    await consoleTab.page.locator('.ProseMirror').waitFor()

    const tiptap = await newTab(browser)
    await tiptap.page.setContent('<div id="editor"></div>')
    await tiptap.page.addScriptTag({ content: bundle })
    const scope = await tiptap.page.evaluate(
      `startTiptap(${JSON.stringify(h.wsUrl)}, ${JSON.stringify(`${org}/${doc_id}`)}, ${JSON.stringify(token)})`,
    )
    expect(scope).toBe('read-write')
    const seed = await textOf(consoleTab.page)
    await eventually(async () => expect(await textOf(tiptap.page)).toBe(seed))

    await tiptap.page.locator('.ProseMirror').click()
    await tiptap.page.keyboard.press('Control+End')
    await tiptap.page.keyboard.type(' from Tiptap')
    // The console moves its caret once Tiptap's text is in: a remote change landing between a native
    // Control+Home and ProseMirror reading the new DOM selection puts the caret back where it was
    // clicked (y-prosemirror restores the selection it last knew), and the typing goes there.
    await eventually(async () => expect(await textOf(consoleTab.page)).toContain('from Tiptap'))
    await consoleTab.page.locator('.ProseMirror').click()
    await consoleTab.page.keyboard.press('Control+Home')
    await consoleTab.page.keyboard.type('Console: ')
    await eventually(async () => {
      const a = await textOf(consoleTab.page)
      const b = await textOf(tiptap.page)
      expect(a, a).toContain('from Tiptap')
      expect(a.startsWith('Console: '), a).toBe(true)
      expect(b).toBe(a)
    })
    await screenshot(tiptap.page, 'hocuspocus-tiptap')
    await screenshot(consoleTab.page, 'hocuspocus-console')
    expect(tiptap.errors).toEqual([])
    expect(consoleTab.errors).toEqual([])
  })
})
