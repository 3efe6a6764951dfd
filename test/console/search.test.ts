// The console's workspace search in a real browser (Debian's Chromium via playwright-core) against
// a real server with the search index on and the demo world: the words typed find the document
// that holds them, the words are marked in its snippet, the result opens the document, and a
// query matching nothing says so.
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedDemo } from '../../src/demo/world.js'
import { call } from '../api/helpers.js'
import { hasChromium, launchChromium, newTab, screenshot } from '../helpers/browser.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'
import { signIn } from './page.js'

let browser: Browser
let h: Harness
let key: string

beforeAll(async () => {
  h = await startTandem({ searchIndex: 'on', searchDebounceMs: 50 })
  key = (await seedDemo(h.server.deps)).apiKey
  // The index's first open (PGlite initdb) and the demo's first pass take seconds.
  await eventually(async () => {
    const res = await call(h, 'GET', '/api/v0/workspaces/demo/search?q=tabs', { key })
    expect(res.status).toBe(200)
    expect((res.body.results as { doc_id: string }[]).map((r) => r.doc_id)).toContain('demo-welcome')
  }, 90_000)
  if (hasChromium()) browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await h?.close()
})

describe.skipIf(!hasChromium())('web console search', () => {
  it('finds the document holding the words, marks them in its snippet, opens it, and says when nothing matches', async () => {
    const { page, errors } = await newTab(browser)
    await signIn(page, `http://127.0.0.1:${h.server.apiPort}/`, key)
    await page.getByLabel('Search', { exact: true }).fill('two tabs')
    await page.getByLabel('Search', { exact: true }).press('Enter')
    const first = page.locator('.search-results li').first()
    await first.waitFor()
    expect(await first.locator('a').getAttribute('href')).toBe('#/w/demo/a/demo-welcome')
    expect(await first.locator('mark').allTextContents()).toEqual(['two', 'tabs'])
    expect(await first.locator('.snippet').textContent()).toContain('edit it from two tabs')
    await screenshot(page, 'console-search')

    await first.locator('a').click()
    await page.locator('.ProseMirror').waitFor()
    expect(new URL(page.url()).hash).toBe('#/w/demo/a/demo-welcome')

    await page.getByLabel('Search', { exact: true }).fill('zyzzyva')
    await page.getByLabel('Search', { exact: true }).press('Enter')
    await page.locator('.search-status', { hasText: 'Nothing found for zyzzyva.' }).waitFor()
    expect(await page.locator('.search-results li').count()).toBe(0)
    expect(errors).toEqual([])
  }, 60_000)
})
