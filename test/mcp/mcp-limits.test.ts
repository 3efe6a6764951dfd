// What /mcp takes matches what read_document gives: a document over the API's 1 MiB body limit is
// read and written back; a limit is a tool error naming it (isError), not a transport exception:
// content over --max-doc-bytes, a request over what /mcp reads, JSON nested past --max-json-depth.
// The SDK's own Client over Streamable HTTP against a real server.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import type { Config } from '../../src/infra/config.js'
import { call, grant, makeWorld, type World } from '../api/helpers.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness | undefined
let client: Client | undefined
afterEach(async () => {
  await client?.close()
  await h?.close()
  client = h = undefined
})

async function start(overrides: Partial<Config> = {}): Promise<{ h: Harness; w: World; client: Client }> {
  h = await startTandem(overrides)
  const w = await makeWorld(h, 'limits')
  await grant(h, w.doc.id, w.users.owner, 'edit')
  client = new Client({ name: 'limits-agent', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(`/mcp?workspace=${w.workspaceId}`, `http://127.0.0.1:${h.server.apiPort}`),
      { requestInit: { headers: { 'x-api-key': w.keys.owner } } },
    ),
  )
  return { h, w, client }
}

type Called = Awaited<ReturnType<Client['callTool']>>
const said = (r: Called) => ({ isError: r.isError === true, text: (r.content as { text: string }[])[0]!.text })

/** Markdown of about `bytes` bytes: numbered paragraphs. */
const markdown = (bytes: number) => {
  const paragraphs: string[] = []
  for (let i = 0, size = 0; size < bytes; i++) {
    const p = `Paragraph ${i}: the agent reads this "quoted" text and writes it back unchanged.`
    paragraphs.push(p)
    size += p.length + 2
  }
  return paragraphs.join('\n\n') + '\n'
}

describe('MCP limits', () => {
  it('a 1.06 MB document read through read_document is written back through edit_document', async () => {
    const { h, w, client } = await start()
    const seed = await call(h, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, {
      key: w.keys.owner,
      body: { access: 'edit' },
    })
    const t = seed.body as { token: string; rest_url: string; org: string; doc_id: string }
    const seeded = await fetch(`${t.rest_url}/content/v1/${t.org}/${t.doc_id}?yauth=${t.token}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ format: 'markdown', content: markdown(1_060_000) }),
    })
    expect(seeded.status).toBe(200)

    const read = JSON.parse(
      said(await client.callTool({ name: 'read_document', arguments: { asset_id: w.doc.id } })).text,
    ) as { content: string; base: string }
    expect(read.content.length).toBeGreaterThan(1_050_000)
    const changed = read.content.replace('Paragraph 0:', 'Paragraph zero:')
    const written = said(
      await client.callTool({
        name: 'edit_document',
        arguments: { asset_id: w.doc.id, content: changed, base: read.base },
      }),
    )
    expect(written.isError).toBe(false)
    expect(JSON.parse(written.text)).toMatchObject({ applied: true })
    const again = JSON.parse(
      said(await client.callTool({ name: 'read_document', arguments: { asset_id: w.doc.id } })).text,
    ) as { content: string }
    expect(again.content).toBe(changed)
  }, 60_000)

  it('content over --max-doc-bytes, and a request over what /mcp reads, are tool errors naming the limit', async () => {
    const { w, client } = await start({ maxDocBytes: 200_000 })
    const over = said(
      await client.callTool({ name: 'edit_document', arguments: { asset_id: w.doc.id, content: markdown(250_000) } }),
    )
    expect(over.isError).toBe(true)
    expect(over.text).toMatch(/^413: .*--max-doc-bytes \(200000 bytes\)/)
    // far past it: /mcp does not read the request, and still answers the call as a tool error
    const huge = said(
      await client.callTool({ name: 'edit_document', arguments: { asset_id: w.doc.id, content: markdown(2_000_000) } }),
    )
    expect(huge.isError).toBe(true)
    expect(huge.text).toMatch(/^413: .*--max-doc-bytes \(200000 bytes\)/)
    // the session goes on
    expect(said(await client.callTool({ name: 'read_document', arguments: { asset_id: w.doc.id } })).isError).toBe(
      false,
    )
  })

  it('a ProseMirror document as deep as the content limit allows is written; JSON nested past what /mcp reads is named: a tool error for a tool call, the reason otherwise', async () => {
    const { h, w, client } = await start()
    const quotes = (n: number) => {
      let deep: Record<string, unknown> = { type: 'paragraph', content: [{ type: 'text', text: 'deep' }] }
      for (let i = 0; i < n; i++) deep = { type: 'blockquote', content: [deep] }
      return { type: 'doc', content: [deep] }
    }
    // 100 quotes: 200 JSON levels, past --max-json-depth (128) but within the content depth limit
    const ok = said(
      await client.callTool({
        name: 'edit_document',
        arguments: { asset_id: w.doc.id, content: quotes(100), format: 'prosemirror' },
      }),
    )
    expect(ok.isError).toBeFalsy()
    const r = said(
      await client.callTool({
        name: 'edit_document',
        arguments: { asset_id: w.doc.id, content: quotes(300), format: 'prosemirror' },
      }),
    )
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/^400: .*nested deeper than \d+ levels \(the larger of --max-json-depth/)

    const sid = (client.transport as StreamableHTTPClientTransport).sessionId!
    const res = await fetch(`http://127.0.0.1:${h.server.apiPort}/mcp?workspace=${w.workspaceId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': w.keys.owner,
        'mcp-session-id': sid,
      },
      body: '{"jsonrpc":"2.0","id":7,"method":"ping","params":' + '['.repeat(700) + ']'.repeat(700) + '}',
    })
    const body = (await res.json()) as { error: { message: string }; id: unknown }
    expect(body.error.message).toMatch(/nested deeper than \d+ levels \(the larger of --max-json-depth/)
    expect(body.error.message).not.toMatch(/application\/json/)
    expect(body.id).toBe(7)
  })
})
