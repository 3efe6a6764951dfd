// edit_document's targeted edits through the official MCP SDK client on a real server: the
// outline, then a str_replace and an insert after a block by id from its base, answered with the
// changed region; a 409 an LLM can act on; edits and content together refused; and under
// approval the same edits held as a suggestion.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grant, makeWorld, type World } from '../api/helpers.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
let w: World
let client: Client

beforeAll(async () => {
  h = await startTandem()
  w = await makeWorld(h, 'mcp-edit')
  await grant(h, w.doc.id, w.users.owner, 'edit')
  client = new Client({ name: 'editor', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(`/mcp?workspace=${w.workspaceId}`, `http://127.0.0.1:${h.server.apiPort}`),
      { requestInit: { headers: { 'x-api-key': w.keys.owner } } },
    ),
  )
})
afterAll(async () => {
  await client?.close()
  await h?.close()
})

type Json = Record<string, any>
async function call(name: string, args: Json): Promise<{ ok: boolean; text: string; json: Json | null }> {
  const r = await client.callTool({ name, arguments: { asset_id: w.doc.id, ...args } })
  const text = (r.content as { text: string }[])[0]!.text
  let json: Json | null = null
  try {
    json = JSON.parse(text)
  } catch {}
  return { ok: !r.isError, text, json }
}

const MD = '# Notes\n\nThe launch is on Friday.\n\n## Open\n\n- pricing\n'

describe('targeted edits over MCP', () => {
  it('an outline, then a str_replace and an insert after a block by id, answered with the changed region', async () => {
    expect((await call('edit_document', { content: MD })).ok).toBe(true)
    const outline = (await call('read_document', { mode: 'outline' })).json!
    const open = outline.entries.find((e: Json) => e.text === 'Open')
    const r = await call('edit_document', {
      base: outline.base,
      edits: [
        { old_text: 'on Friday', new_text: 'on Monday' },
        { insert: 'Decide by **Thursday**.', after: open.id },
      ],
    })
    expect(r.ok).toBe(true)
    expect(r.json).toMatchObject({ applied: true })
    expect(r.json!.changes.map((c: Json) => c.content).join('')).toContain('The launch is on Monday.')
    expect((await call('read_document', {})).json!.content).toBe(
      '# Notes\n\nThe launch is on Monday.\n\n## Open\n\nDecide by **Thursday**.\n\n- pricing\n',
    )
  })

  it('old_text that is not there is a tool error naming the closest line; edits with content is refused', async () => {
    const miss = await call('edit_document', { edits: [{ old_text: 'The launch is on Sunday', new_text: 'x' }] })
    expect(miss.ok).toBe(false)
    expect(miss.text).toMatch(/^409: .*closest text is on line 3/)
    const both = await call('edit_document', { edits: [{ old_text: 'a', new_text: 'b' }], content: 'x' })
    expect(both).toMatchObject({ ok: false, text: expect.stringMatching(/^400: give edits .* or content/) })
  })

  it('suggest_edit holds targeted edits as a suggestion; the document is unchanged', async () => {
    const before = (await call('read_document', {})).json!
    const r = await call('suggest_edit', {
      base: before.base,
      edits: [{ old_text: '- pricing', new_text: '- pricing\n- hiring' }],
    })
    expect(r.ok).toBe(true)
    expect(r.json).toMatchObject({ applied: false, suggestion: { status: 'open' } })
    expect((await call('read_document', {})).json!.content).toBe(before.content)
  })
})
