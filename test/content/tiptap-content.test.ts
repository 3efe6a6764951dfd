// In Chromium: a document written by Tiptap (@tiptap/core with StarterKit and the Collaboration
// extension, on a HocuspocusProvider) reads back over the content REST route as the same
// ProseMirror JSON Tiptap holds and as Markdown; a Markdown and a ProseMirror JSON write reach the
// open Tiptap editor, and what Markdown cannot say (a link's target and rel) stays as Tiptap set it.
import { build } from 'esbuild'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/auth/capability.js'
import { hasChromium, launchChromium, newTab } from '../helpers/browser.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'

let browser: Browser
let h: Harness
let bundle: string

beforeAll(async () => {
  if (!hasChromium()) return
  h = await startTandem({}, { api: false })
  const out = await build({
    entryPoints: [join(import.meta.dirname, '..', 'hocuspocus', 'tiptap-page.ts')],
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
})

type Json = Record<string, any>

/** Tiptap's JSON as Yjs stores it: attributes whose value is null are not kept. */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls)
  if (v === null || typeof v !== 'object') return v
  const out: Json = {}
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = withoutNulls(x)
  if (out.attrs && Object.keys(out.attrs).length === 0) delete out.attrs
  return out
}

const HTML =
  '<h2>Plan</h2><p>Some <strong>bold</strong>, <em>italic</em>, <s>struck</s>, <code>code</code> and a <a href="https://example.com">link</a>.</p>' +
  '<ul><li><p>one</p><ul><li><p>nested</p></li></ul></li><li><p>two</p></li></ul><ol start="3"><li><p>three</p></li></ol>' +
  '<blockquote><p>quoted</p></blockquote><pre><code class="language-js">let x = 1</code></pre><p>line<br>break</p><hr>'

const MARKDOWN = `## Plan

Some **bold**, *italic*, ~~struck~~, \`code\` and a [link](https://example.com).

- one
  - nested
- two

3. three

> quoted

\`\`\`js
let x = 1
\`\`\`

line\\
break

---
`

describe.skipIf(!hasChromium())('content of a document Tiptap wrote', () => {
  it('reads as Tiptap holds it, in ProseMirror JSON and Markdown, and takes writes in both that the editor shows', async () => {
    const doc = 'tiptap-content'
    const { token } = await mintToken(h.server.deps.keys, { org: 'acme', doc, sub: 'writer', acc: 'rw', ttlSec: 600 })
    const tab = await newTab(browser)
    const page: Page = tab.page
    await page.setContent('<div id="editor"></div>')
    await page.addScriptTag({ content: bundle })
    expect(
      await page.evaluate(
        `startTiptap(${JSON.stringify(h.wsUrl)}, ${JSON.stringify(`acme/${doc}`)}, ${JSON.stringify(token)})`,
      ),
    ).toBe('read-write')
    await page.evaluate(`tiptap.commands.setContent(${JSON.stringify(HTML)})`)
    const tiptapJson = async () => (await page.evaluate('tiptap.getJSON()')) as Json

    const api = async (method: string, query = '', body?: unknown) => {
      const res = await fetch(`${h.httpUrl}/content/v1/acme/${doc}?yauth=${token}${query}`, {
        method,
        ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
      })
      return (await res.json()) as Json
    }
    await eventually(async () => expect((await api('GET')).content).toBe(MARKDOWN))
    // node attributes that are null are not stored; mark attributes are stored whole, nulls included
    expect(withoutNulls((await api('GET', '&format=prosemirror')).content)).toEqual(withoutNulls(await tiptapJson()))
    expect((await api('GET', '&format=text')).content).toBe(
      'Plan\nSome bold, italic, struck, code and a link.\none\nnested\ntwo\nthree\nquoted\nlet x = 1\nline\nbreak\n\n',
    ) // the rule and the empty paragraph Tiptap puts after it

    // Markdown in: the editor shows it, the link keeps the target and rel Tiptap gave it.
    const read = await api('GET')
    const linkBefore = (await tiptapJson()).content[1].content.at(-2).marks[0]
    expect(linkBefore.attrs).toMatchObject({ href: 'https://example.com', target: '_blank' })
    const w = await api('PATCH', '', {
      format: 'markdown',
      content: read.content.replace('- two', '- two, edited').replace('## Plan', '## The plan'),
      base: read.base,
    })
    expect(w.applied).toBe(true)
    await eventually(async () => {
      const j = await tiptapJson()
      expect(j.content[0].content[0].text).toBe('The plan')
      expect(j.content[2].content[1].content[0].content[0].text).toBe('two, edited')
      expect(j.content[1].content.at(-2).marks[0]).toEqual(linkBefore)
    })

    // ProseMirror JSON in, as Tiptap's own getJSON() gives it.
    const j = await tiptapJson()
    j.content[4].content[0].content[0].text = 'quoted, by the agent'
    const w2 = await api('PATCH', '', { format: 'prosemirror', content: j, base: w.base })
    expect(w2).toMatchObject({ applied: true })
    await eventually(async () =>
      expect((await tiptapJson()).content[4].content[0].content[0].text).toBe('quoted, by the agent'),
    )
    expect(tab.errors).toEqual([])
  })
})
