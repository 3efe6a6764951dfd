// read_document's modes through the official MCP SDK client on a real server: outline, section,
// range and find, each with the base and, past the bound, a cursor; structured content matching
// the declared output schema; the tool announced read-only.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grant, makeWorld, type World } from '../api/helpers.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
let w: World
let client: Client

beforeAll(async () => {
  h = await startTandem({ maxReadChars: 1000 })
  w = await makeWorld(h, 'mcp-read')
  await grant(h, w.doc.id, w.users.owner, 'edit')
  client = new Client({ name: 'reader', version: '1.0.0' })
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
async function read(args: Json): Promise<Json> {
  const r = await client.callTool({ name: 'read_document', arguments: { asset_id: w.doc.id, ...args } })
  const text = (r.content as { text: string }[])[0]!.text
  if (r.isError) throw new Error(text)
  expect(r.structuredContent).toEqual(JSON.parse(text))
  return r.structuredContent as Json
}

const MD =
  [
    '# Report',
    'Opening words.',
    '## Costs',
    ...Array.from({ length: 60 }, (_, i) => `Cost line ${i} of the report.`),
    '## Summary',
    'All told, fine.',
  ].join('\n\n') + '\n'

describe('read_document over MCP', () => {
  it('is announced read-only with every parameter described and an output schema', async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === 'read_document')!
    expect(tool.annotations).toMatchObject({ readOnlyHint: true })
    expect(tool.outputSchema?.properties).toHaveProperty('base')
    const props = tool.inputSchema.properties as Record<string, { description?: string }>
    for (const [name, p] of Object.entries(props)) expect([name, typeof p.description]).toEqual([name, 'string'])
  })

  it('reads the outline, a section by heading, a range of lines and finds text, all at one base, paging past the bound', async () => {
    const written = await client.callTool({ name: 'edit_document', arguments: { asset_id: w.doc.id, content: MD } })
    expect(written.isError).toBeFalsy()
    const whole = await read({})
    expect(whole.content).toBe(MD)
    const outline = await read({ mode: 'outline' })
    expect(outline).toMatchObject({ view: 'outline', base: whole.base, block_count: 65 })
    const summary = outline.entries.find((e: Json) => e.text === 'Summary')
    expect(summary).toBeDefined()
    expect(await read({ mode: 'section', heading: summary.id })).toMatchObject({
      content: '## Summary\n\nAll told, fine.\n',
      base: whole.base,
      truncated: false,
    })
    const lines = MD.split('\n')
    expect((await read({ mode: 'range', lines: '3-7' })).content).toBe(lines.slice(2, 7).join('\n') + '\n')
    // The Costs section is past the bound: its pages, followed by cursor, are the section once.
    const pages = [await read({ mode: 'section', heading: 'Costs' })]
    while (pages.at(-1)!.next) pages.push(await read({ cursor: pages.at(-1)!.next }))
    expect(pages.length).toBeGreaterThan(1)
    const costs = MD.slice(MD.indexOf('## Costs'), MD.indexOf('## Summary'))
    expect(pages.map((p) => p.content).join('')).toBe(costs.replace(/\n\n$/, '\n'))
    const found = await read({ mode: 'find', query: 'cost line 4 of', ignore_case: true, context: 0 })
    expect(found.matches.map((m: Json) => m.match)).toEqual(['Cost line 4 of'])
    expect(found.matches[0]).toMatchObject({ line: 15, context: 'Cost line 4 of the report.', context_line: 15 })
  })

  it('answers a bad parameter as a tool error naming it', async () => {
    const r = await client.callTool({
      name: 'read_document',
      arguments: { asset_id: w.doc.id, mode: 'range', lines: '9-2' },
    })
    expect(r.isError).toBe(true)
    expect((r.content as { text: string }[])[0]!.text).toMatch(/^400: lines:/)
  })
})
