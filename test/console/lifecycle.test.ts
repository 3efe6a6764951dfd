// The console's document lifecycle in a real browser (Debian's Chromium via playwright-core) against
// a real server with the demo world: named versions (save, rename with a conflict, open read-only,
// restore, delete), deleting a document as its owner and restoring it from Deleted assets, and an
// AI agent's edit shown apart in the history and undone while a person's edits stay.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createApiKey } from '../../src/control/api-keys.js'
import { seedDemo } from '../../src/demo/world.js'
import { call } from '../api/helpers.js'
import { hasChromium, launchChromium, newTab, screenshot } from '../helpers/browser.js'
import { signIn, textOf } from './page.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'

const DOC = 'demo-welcome'
const DOC_URL = `#/w/demo/a/${DOC}`

let browser: Browser
let h: Harness
let base: string
let demoKey: string
let adaKey: string

beforeAll(async () => {
  h = await startTandem()
  demoKey = (await seedDemo(h.server.deps)).apiKey
  adaKey = (await createApiKey(h.server.deps.control.store, 'ada@tandem.local', 'console test', Date.now())).key
  base = `http://127.0.0.1:${h.server.apiPort}/`
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await h?.close()
})

async function openDoc(key: string) {
  const tab = await newTab(browser)
  await signIn(tab.page, base + DOC_URL, key)
  await tab.page.locator('.status-line[data-state="synced"]').waitFor()
  await tab.page.locator('.doc-main .ProseMirror').waitFor()
  return tab
}

const editorText = (page: Page) => textOf(page, '.doc-main .ProseMirror')
const serverText = async () =>
  (await call(h, 'GET', `/api/v0/tools/asset/content?asset_id=${DOC}`, { key: demoKey })).body.content as string

async function typeAtEnd(page: Page, text: string) {
  await page.locator('.doc-main .ProseMirror').click()
  await page.keyboard.press('Control+End')
  await page.keyboard.type(text)
}

/** A collab token for the demo document, as a REST client (an agent, another person) would mint it. */
async function mint(body: object = {}) {
  const r = await call(h, 'POST', `/api/v0/assets/${DOC}/collab-token`, {
    key: demoKey,
    body: { access: 'edit', ...body },
  })
  expect(r.status).toBe(200)
  return r.body as { token: string; rest_url: string; org: string; doc_id: string }
}
const restOf = (t: { rest_url: string; org: string; doc_id: string }, name: string, id?: string) =>
  `${t.rest_url}/${name}/v1/${t.org}/${t.doc_id}${id ? `/${id}` : ''}`

describe.skipIf(!hasChromium())('web console: versions, delete and restore, agents', () => {
  it('saves a version, renames it (a conflicting rename is explained and the current name offered), opens it read-only, restores it, deletes it', async () => {
    const { context, page, errors } = await openDoc(demoKey)
    await typeAtEnd(page, ' Kept in the version.')
    await eventually(async () => expect(await serverText()).toContain('Kept in the version.'))
    const saved = await editorText(page)

    const panel = page.getByRole('region', { name: 'Versions' })
    await panel.getByLabel('Version name').fill('First draft')
    await panel.getByLabel('Version name').press('Enter')
    await panel.locator('.versions-status', { hasText: 'Saved “First draft”.' }).waitFor()
    await panel.locator('.version-name', { hasText: 'First draft' }).waitFor()

    // Rename, keyboard only.
    await panel.getByRole('button', { name: 'Rename version “First draft”' }).focus()
    await page.keyboard.press('Enter')
    await page.keyboard.press('Control+A')
    await page.keyboard.type('Draft one')
    await page.keyboard.press('Enter')
    await panel.locator('.version-name', { hasText: 'Draft one' }).waitFor()

    // Someone else renames it while this page's rename form is open: 409, nothing overwritten.
    await panel.getByRole('button', { name: 'Rename version “Draft one”' }).click()
    const t = await mint()
    const listed = (await (await fetch(`${restOf(t, 'versions')}?yauth=${t.token}`)).json()) as {
      versions: { id: string; updated_at_ms: number }[]
    }
    const v = listed.versions[0]!
    const other = await fetch(`${restOf(t, 'versions', v.id)}?yauth=${t.token}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Their name', updated_at_ms: v.updated_at_ms }),
    })
    expect(other.status).toBe(200)
    await panel.getByLabel('New name for “Draft one”').fill('My name')
    await panel.getByRole('button', { name: 'Save name' }).click()
    await panel
      .locator('.rename-note', { hasText: 'Not renamed: someone else renamed this version to “Their name” meanwhile' })
      .waitFor()
    await panel.getByRole('button', { name: 'Keep “Their name”' }).waitFor()
    await screenshot(page, '20-version-rename-conflict')
    // Saving again renames from their name.
    await panel.getByRole('button', { name: 'Save name' }).click()
    await panel.locator('.version-name', { hasText: 'My name' }).waitFor()
    expect(await panel.locator('.version-name').allInnerTexts()).toEqual(['My name'])

    // The document moves on; the version opened read-only still reads as saved, the live editor is untouched.
    await typeAtEnd(page, ' Written after the version.')
    await eventually(async () => expect(await serverText()).toContain('Written after the version.'))
    await panel.getByRole('button', { name: 'Open version “My name”' }).click()
    const preview = panel.locator('.version-doc .ProseMirror')
    await preview.waitFor()
    expect(await preview.getAttribute('contenteditable')).toBe('false')
    expect(await textOf(page, '.version-doc .ProseMirror')).toBe(saved)
    expect(await editorText(page)).toContain('Written after the version.')
    await screenshot(page, '21-version-open-read-only')
    await panel.getByRole('button', { name: 'Close version' }).click()
    expect(await panel.locator('.version-doc').count()).toBe(0)

    // Restore: the editor (and the server) read as the version again.
    await panel.getByRole('button', { name: 'Restore version “My name”' }).click()
    await panel.locator('.versions-status', { hasText: /^Restored “My name”: \d+ removed/ }).waitFor()
    await eventually(async () => expect(await editorText(page)).toBe(saved))
    await eventually(async () => expect(await serverText()).toBe(saved))

    // A viewer may open versions, not save, rename, restore or delete them.
    const viewer = await newTab(browser)
    await signIn(viewer.page, `${base}${DOC_URL}?mode=view`, demoKey)
    const viewerPanel = viewer.page.getByRole('region', { name: 'Versions' })
    await viewerPanel.getByRole('button', { name: 'Open version “My name”' }).waitFor()
    expect(await viewerPanel.getByLabel('Version name').count()).toBe(0)
    for (const action of ['Rename', 'Restore', 'Delete'])
      expect(await viewerPanel.getByRole('button', { name: `${action} version “My name”` }).isDisabled()).toBe(true)
    expect(viewer.errors).toEqual([])
    await viewer.context.close()

    // Delete, confirmed in a dialog (Cancel first changes nothing).
    await panel.getByRole('button', { name: 'Delete version “My name”' }).click()
    await page.getByRole('dialog', { name: 'Delete version' }).getByRole('button', { name: 'Cancel' }).click()
    expect(await panel.locator('.version-name').allInnerTexts()).toEqual(['My name'])
    await panel.getByRole('button', { name: 'Delete version “My name”' }).click()
    await page.getByRole('dialog', { name: 'Delete version' }).getByRole('button', { name: 'Delete version' }).click()
    await panel.locator('.versions .hint', { hasText: 'No named versions yet.' }).waitFor()
    expect(
      ((await (await fetch(`${restOf(t, 'versions')}?yauth=${t.token}`)).json()) as { versions: unknown[] }).versions,
    ).toEqual([])
    expect(errors).toEqual([])
    await context.close()
  })

  it('an owner deletes the document: open editors say it was deleted, it leaves the list; Restore brings it back unchanged', async () => {
    const owner = await openDoc(demoKey)
    const other = await openDoc(adaKey)
    const before = await serverText()

    await owner.page.getByRole('button', { name: `Delete “Welcome to Tandem”` }).click()
    const dialog = owner.page.getByRole('dialog', { name: 'Delete “Welcome to Tandem”?' })
    expect(await dialog.getByLabel(/^Erase for good/).isChecked()).toBe(false)
    await screenshot(owner.page, '22-asset-delete-confirm')
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click()

    for (const p of [owner.page, other.page]) {
      await p.locator('.status-line[data-state="deleted"]').waitFor({ timeout: 15_000 })
      expect(await p.locator('.status-line').innerText()).toContain('this document was deleted')
      expect(await p.locator('.doc-main .ProseMirror').getAttribute('contenteditable')).toBe('false')
    }
    await eventually(async () =>
      expect(await owner.page.locator('.assets a').allInnerTexts()).not.toContain('doc Welcome to Tandem'),
    )
    expect((await call(h, 'POST', `/api/v0/assets/${DOC}/collab-token`, { key: demoKey, body: {} })).status).toBe(404)
    const bin = owner.page.getByRole('region', { name: 'Deleted assets' })
    await bin.locator('.deleted-title', { hasText: 'Welcome to Tandem' }).waitFor()
    await screenshot(owner.page, '23-asset-deleted')
    // The editor stays down: no reconnect loop (the socket was closed 4404 for good). A reconnect
    // would come within y-websocket's first backoff steps (200-400 ms); give it far longer.
    let reconnects = 0
    owner.page.on('websocket', () => reconnects++)
    await owner.page.waitForTimeout(1_500)
    expect(reconnects).toBe(0)
    expect(await owner.page.locator('.status-line').getAttribute('data-state')).toBe('deleted')

    await bin.getByRole('button', { name: 'Restore “Welcome to Tandem”' }).click()
    await owner.page.locator('.status-line[data-state="synced"]').waitFor({ timeout: 15_000 })
    await eventually(async () =>
      expect(await owner.page.locator('.assets a').allInnerTexts()).toContain('doc Welcome to Tandem'),
    )
    expect(await bin.locator('.deleted-title').count()).toBe(0)
    expect(await editorText(owner.page)).toBe(before)
    expect(await serverText()).toBe(before)
    expect([...owner.errors, ...other.errors]).toEqual([])
    await owner.context.close()
    await other.context.close()
  })

  it("an agent's edit carries its badge in the history, and Undo this agent removes exactly its text while a person's edits stay", async () => {
    const { context, page, errors } = await openDoc(demoKey)
    await typeAtEnd(page, ' Person before.')
    await eventually(async () => expect(await serverText()).toContain('Person before.'))

    // The agent writes over REST with a token minted with attributions.
    const agent = await mint({ attributions: { source: 'ai', model: 'm1' } })
    const got = (await (await fetch(`${restOf(agent, 'ydoc')}?yauth=${agent.token}`)).json()) as { doc: string }
    const doc = new Y.Doc()
    Y.applyUpdate(doc, Buffer.from(got.doc, 'base64'))
    const updates: Uint8Array[] = []
    doc.on('update', (u: Uint8Array) => updates.push(u))
    const second = doc.getXmlFragment('default').get(1) as Y.XmlElement
    ;(second.get(0) as Y.XmlText).insert(0, 'AGENT WROTE THIS. ')
    const patched = await fetch(`${restOf(agent, 'ydoc')}?yauth=${agent.token}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ update: Buffer.from(Y.mergeUpdates(updates)).toString('base64') }),
    })
    expect(patched.status).toBe(200)
    await eventually(async () => expect(await editorText(page)).toContain('AGENT WROTE THIS. '))
    await typeAtEnd(page, ' Person after.')
    await eventually(async () => expect(await serverText()).toContain('Person after.'))

    // The history lists the agent's edit apart, with its attributions.
    const badge = page.locator('.activity .entry .agent-badge')
    await badge.first().waitFor({ timeout: 15_000 })
    expect(await badge.allInnerTexts()).toEqual(['source: ai · model: m1'])
    const entry = page.locator('.activity .entry', { has: page.locator('.agent-badge') })
    expect(await entry.getAttribute('aria-label')).toContain('demo@tandem.local (source: ai · model: m1)')
    await entry.focus()
    await page.keyboard.press('Enter')
    await page.locator('.changeset h4', { hasText: 'source: ai · model: m1' }).waitFor()
    await screenshot(page, '24-agent-entry')

    const withAgent = await editorText(page)
    await page.getByRole('button', { name: 'Undo this agent' }).click()
    await page.locator('.restore-result', { hasText: /^Undone: \d+ removed/ }).waitFor()
    await eventually(async () => expect(await editorText(page)).toBe(withAgent.replace('AGENT WROTE THIS. ', '')))
    const after = await editorText(page)
    expect(after).toContain('Person before.')
    expect(after).toContain('Person after.')
    await eventually(async () => expect(await serverText()).toBe(after))
    await screenshot(page, '25-agent-undone')
    expect(errors).toEqual([])
    await context.close()
  })
})
