// A content `base` names its document, on a real server over LevelDB and PostgreSQL: a base another
// document gave out, a `"0"` or bare seq nobody was given, or a forged tag is 400 and writes nothing
// (before, each was read as a state of this document and the write re-inserted what it holds); a
// base this document gave out still merges with what was written since; over MCP, edit_document
// with a foreign base is a tool error.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/auth/capability.js'
import { asset, grant, makeWorld } from '../api/helpers.js'
import { BACKENDS, type Backend } from '../helpers/backends.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
let backend: Backend
const clients: Client[] = []
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()))
  await h?.close()
})

type Json = Record<string, any>

const token = async (doc: string) =>
  (await mintToken(h.server.deps.keys, { org: 'acme', doc, sub: 'agent', acc: 'rw', ttlSec: 600 })).token

async function call(method: string, doc: string, body?: unknown, query = '') {
  const res = await fetch(`${h.httpUrl}/content/v1/acme/${doc}?yauth=${await token(doc)}${query}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

const write = (doc: string, content: string, base?: string) =>
  call('PATCH', doc, { format: 'markdown', content, ...(base === undefined ? {} : { base }) })
const read = async (doc: string) => (await call('GET', doc)).body as { content: string; base: string }
async function logLength(doc: string): Promise<number> {
  let n = 0
  for await (const _ of h.server.store.readLog(`acme/${doc}/main`)) n++
  return n
}

/** Welcome has three writes (head seq 3); Other one (seq 1): Other's base is a seq Welcome holds. */
async function twoDocuments() {
  await write('welcome', 'Welcome.\n')
  await write('welcome', 'Welcome.\n\nSecond.\n')
  await write('welcome', 'Welcome.\n\nSecond.\n\nThird.\n')
  await write('other', 'Other.\n')
  return { welcome: await read('welcome'), other: await read('other') }
}

/** The write refused: 400 naming the base, the document's log and content as they were. */
async function refusedUnchanged(doc: string, base: unknown, message: RegExp) {
  const before = await read(doc)
  const entries = await logLength(doc)
  const res = await call('PATCH', doc, { format: 'markdown', content: `${before.content}\nAdded.\n`, base })
  expect(res.status).toBe(400)
  expect(res.body).toMatchObject({ code: 'bad_request', error: expect.stringMatching(message) })
  expect(await logLength(doc)).toBe(entries)
  expect((await read(doc)).content).toBe(before.content)
}

describe.each(BACKENDS)('content bases name their document on $name', (b) => {
  beforeAll(() => {
    backend = b
  })
  const open = async () => {
    h = await startTandem(await backend.overrides(), { api: false })
  }

  it("a base another document gave out is 400 and writes nothing (it used to duplicate this document's paragraphs)", async () => {
    await open()
    const { other } = await twoDocuments()
    await refusedUnchanged('welcome', other.base, /not given out for this document.*read the document again/)
  })

  it('"0", a bare seq and a base that is no token are 400 "read the document again", nothing written', async () => {
    await open()
    await twoDocuments()
    await refusedUnchanged('welcome', '0', /names no document.*read the document again/)
    await refusedUnchanged('welcome', '2', /names no document.*read the document again/)
    await refusedUnchanged('welcome', 'yesterday', /not a base this server gave out/)
    await refusedUnchanged('welcome', 2, /must be the string a read/)
  })

  it('a forged tag is 400: another seq under a good tag, a made-up tag', async () => {
    await open()
    const { welcome } = await twoDocuments()
    const [form, tag] = welcome.base.split('.') as [string, string]
    expect(form).toBe('3')
    await refusedUnchanged('welcome', `1.${tag}`, /not given out for this document/)
    await refusedUnchanged('welcome', `${form}.${'A'.repeat(16)}`, /not given out for this document/)
    await refusedUnchanged('welcome', `${form}.${tag}x`, /not a base this server gave out/)
  })

  it("a base this document gave out still merges: the write keeps what was written since, and the answer's base chains", async () => {
    await open()
    await write('doc', 'One.\n\nTwo.\n')
    const first = await read('doc')
    await write('doc', 'One.\n\nTwo.\n\nThree, by someone else.\n')
    const agent = await write('doc', 'One, by the agent.\n\nTwo.\n', first.base)
    expect(agent.status).toBe(200)
    expect(agent.body.base).toMatch(/^1~3\.[A-Za-z0-9_-]{16}$/)
    expect((await read('doc')).content).toBe('One, by the agent.\n\nTwo.\n\nThree, by someone else.\n')
    expect((await write('doc', 'One, by the agent.\n\nTwo.\n', agent.body.base)).body.applied).toBe(false)
    // and it survives a restart (the key is stored beside the document)
    await h.restart()
    expect((await write('doc', 'One, by the agent.\n\nTwo, again.\n', agent.body.base)).status).toBe(200)
    expect((await read('doc')).content).toBe('One, by the agent.\n\nTwo, again.\n\nThree, by someone else.\n')
  })

  it('a suggestion made from a foreign base is 400 too', async () => {
    await open()
    const { other } = await twoDocuments()
    const res = await fetch(`${h.httpUrl}/suggestions/v1/acme/welcome?yauth=${await token('welcome')}`, {
      method: 'POST',
      body: JSON.stringify({
        format: 'markdown',
        content: 'Welcome.\n\nSecond.\n\nThird.\n\nMore.\n',
        base: other.base,
      }),
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
  })
})

describe('MCP edit_document with a base another document gave out', () => {
  it('is a tool error naming the base, and the document is unchanged', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'basemcp')
    const second = await asset(h, { workspaceId: w.workspaceId, type: 'generic_doc', title: 'second' })
    for (const id of [w.doc.id, second.id]) await grant(h, id, w.users.owner, 'edit')
    const client = new Client({ name: 'base-agent', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(
        new URL(`/mcp?workspace=${w.workspaceId}`, `http://127.0.0.1:${h.server.apiPort}`),
        { requestInit: { headers: { 'x-api-key': w.keys.owner } } },
      ),
    )
    clients.push(client)
    const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as { text: string }[])[0]!.text
    const edit = (asset_id: string, content: string, base?: string) =>
      client.callTool({ name: 'edit_document', arguments: { asset_id, content, ...(base ? { base } : {}) } })
    const readDoc = async (asset_id: string) =>
      JSON.parse(text(await client.callTool({ name: 'read_document', arguments: { asset_id } }))) as {
        content: string
        base: string
      }
    for (const c of ['A.\n', 'A.\n\nB.\n', 'A.\n\nB.\n\nC.\n']) expect((await edit(w.doc.id, c)).isError).toBeFalsy()
    expect((await edit(second.id, 'Second.\n')).isError).toBeFalsy()
    const foreign = (await readDoc(second.id)).base
    const refused = await edit(w.doc.id, 'A.\n\nB.\n\nC.\n\nD.\n', foreign)
    expect(refused.isError).toBe(true)
    expect(text(refused)).toMatch(/^400: .*not given out for this document/)
    expect((await readDoc(w.doc.id)).content).toBe('A.\n\nB.\n\nC.\n')
  })
})
