// Markdown streamed into a live document on a real server, a person on the stock provider in the
// room: every chunk reaches the editor as real blocks (never a raw `#`, `**` or table row as
// text), the agent's caret follows the end of the text, and the end leaves the document exactly
// as one write of the same Markdown does, wherever the chunks were cut. Cancel keeps what was
// shown, or with atomic removes it in one update; a person typing beside the stream keeps every
// keystroke.
import http from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import type { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
afterEach(async () => h?.close())

type Json = Record<string, any>

const SEED = '# Plan\n\nShip on Friday, after the review.\n\n## Risks\n\nNone known.\n'
const STREAMED =
  '## Launch notes\n\nWe ship on **Monday**, after the _review_ and a `dry run`.\n\n- the build\n- the [docs](https://example.com)\n\n| step | owner |\n| --- | --- |\n| build | ann |\n| docs | bob |\n\n```js\nconst a = 1 * 2\n```\n\nThat is all.'

/** The agent's token for `doc`: a session named Writer, unless `session` is false. */
async function agentToken(doc: string, session = true): Promise<string> {
  const { token } = await mintToken(h.server.deps.keys, {
    org: 'acme',
    doc,
    sub: 'bot@example.com',
    acc: 'rw',
    agent: true,
    ...(session ? { session: { id: 's-1', name: 'Writer' } } : {}),
    ttlSec: 600,
  })
  return token
}

/** The agent's calls on `doc`: `route` is `content`, or `stream` with what follows the document. */
async function agent(doc: string) {
  const token = await agentToken(doc)
  return async (method: string, route: string, body?: unknown, tail = '') => {
    const res = await fetch(`${h.httpUrl}/${route}/v1/acme/${doc}${tail}?yauth=${token}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    })
    return { status: res.status, body: (await res.json()) as Json }
  }
}

/** The stream route of `doc`, as the agent calls it. */
async function streamCall(doc: string) {
  const call = await agent(doc)
  return (method: string, tail: string, body?: unknown) => call(method, 'stream', body, tail)
}

async function markdownOf(doc: string): Promise<string> {
  const t = await h.token('acme', doc)
  return ((await (await fetch(`${h.httpUrl}/content/v1/acme/${doc}?yauth=${t}`)).json()) as Json).content as string
}

async function seed(doc: string, md = SEED): Promise<void> {
  const t = await h.token('acme', doc)
  const r = await fetch(`${h.httpUrl}/content/v1/acme/${doc}?yauth=${t}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ format: 'markdown', content: md }),
  })
  expect(r.status).toBe(200)
}

/** Raw Markdown a person would see as text: a marker outside code. */
function rawMarkers(fragment: Y.XmlFragment): string[] {
  const out: string[] = []
  const walk = (el: Y.XmlElement | Y.XmlFragment, code: boolean) => {
    for (const c of el.toArray()) {
      if (c instanceof Y.XmlText) {
        const text = (c.toDelta() as { insert: unknown; attributes?: Json }[])
          .filter((d) => !d.attributes?.code)
          .map((d) => (typeof d.insert === 'string' ? d.insert : ''))
          .join('')
        if (!code && /^#|\*\*|^\||^- |\]\(|```/.test(text)) out.push(text)
      } else if (c instanceof Y.XmlElement) walk(c, code || c.nodeName === 'codeBlock' || c.nodeName === 'code_block')
    }
  }
  walk(fragment, false)
  return out
}

function cuts(text: string, seed: number): string[] {
  let x = seed
  const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648
  const out: string[] = []
  for (let i = 0; i < text.length;) {
    const n = 1 + Math.floor(rand() * 12)
    out.push(text.slice(i, i + n))
    i += n
  }
  return out
}

async function person(doc: string): Promise<{ p: WebsocketProvider; ydoc: Y.Doc }> {
  const ydoc = new Y.Doc()
  const p = h.provider('acme', doc, await h.token('acme', doc, { sub: 'pat@example.com' }), ydoc)
  await synced(p)
  return { p, ydoc }
}

describe('a Markdown stream into a live document', () => {
  it('shows each chunk as real blocks and ends as one write of the same Markdown, wherever the cuts fall', async () => {
    h = await startTandem()
    await seed('once')
    const once = await agent('once')
    const read = await once('GET', 'content')
    expect(
      (await once('PATCH', 'content', { base: read.body.base, edits: [{ insert: STREAMED, after: 'Risks' }] })).status,
    ).toBe(200)
    const expected = await markdownOf('once')

    for (const seedNo of [1, 2, 3]) {
      const doc = `streamed-${seedNo}`
      await seed(doc)
      const { p, ydoc } = await person(doc)
      const call = await streamCall(doc)
      const started = await call('POST', '', { after: 'Risks' })
      expect(started.status).toBe(201)
      const id = started.body.stream as string
      let seen = 0
      for (const chunk of cuts(STREAMED, seedNo)) {
        const r = await call('POST', `/${id}`, { text: chunk })
        expect(r.status).toBe(200)
        expect(r.body.shown + r.body.held).toBe((seen += chunk.length))
        // what the person's editor holds once this step arrived: structure, never raw markers
        await eventually(() => expect(rawMarkers(ydoc.getXmlFragment('default'))).toEqual([]))
      }
      const end = await call('POST', `/${id}/end`, {})
      expect(end.status).toBe(200)
      expect(end.body.held).toBe(0)
      expect(await markdownOf(doc)).toBe(expected)
      await eventually(() => {
        const agents = [...p.awareness.getStates().values()].filter((s: Json) => s.user?.kind === 'agent')
        expect(agents.map((s: Json) => s.user.name)).toEqual(['Writer'])
        const head = Y.createAbsolutePositionFromRelativePosition(
          Y.createRelativePositionFromJSON(agents[0]!.cursor.head),
          ydoc,
        )!
        expect((head.type as Y.XmlText).toString().slice(0, head.index)).toBe('That is all.')
      })
      // every step is the agent's, tagged with the stream
      const entries: Json[] = []
      for await (const e of h.server.store.readLog(`acme/${doc}/main`)) entries.push(e)
      const streamed = entries.filter((e) => e.attrs?.stream === id)
      expect(streamed.length).toBeGreaterThan(5)
      expect(new Set(streamed.map((e) => e.user))).toEqual(new Set(['bot@example.com']))
    }
  })

  it('cancelled keeps what it showed, which a rollback by its attribution takes back; atomic, it removes all of it in one update', async () => {
    h = await startTandem()
    await seed('keep')
    const keep = await streamCall('keep')
    const k = (await keep('POST', '', { at: 'end' })).body.stream as string
    await keep('POST', `/${k}`, { text: 'Kept paragraph.\n\nAnd half a **sen' })
    const cancelled = await keep('DELETE', `/${k}`)
    expect(cancelled.status).toBe(200)
    expect(await markdownOf('keep')).toBe(`${SEED}\nKept paragraph.\n\nAnd half a\n`)
    expect((await keep('POST', `/${k}`, { text: 'more' })).status).toBe(404)
    // rollback by the stream's attribution takes the whole run back, in one update
    const person = await h.token('acme', 'keep')
    const rb = await fetch(`${h.httpUrl}/rollback/v1/acme/keep?yauth=${person}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: 0, to: Date.now() + 60_000, attr: { stream: k } }),
    })
    expect(rb.status).toBe(200)
    expect(await markdownOf('keep')).toBe(SEED)

    await seed('atomic')
    const atomic = await streamCall('atomic')
    const a = (await atomic('POST', '', { after: 'Plan', atomic: true })).body.stream as string
    for (const chunk of cuts(STREAMED, 7).slice(0, 20)) await atomic('POST', `/${a}`, { text: chunk })
    expect(await markdownOf('atomic')).not.toBe(SEED)
    let entries = 0
    for await (const _ of h.server.store.readLog('acme/atomic/main')) entries++
    expect((await atomic('DELETE', `/${a}`)).status).toBe(200)
    expect(await markdownOf('atomic')).toBe(SEED)
    let after = 0
    for await (const _ of h.server.store.readLog('acme/atomic/main')) after++
    expect(after).toBe(entries + 1)
  })

  it('a person typing in the paragraph after the stream keeps every keystroke, and the stream all its text', async () => {
    h = await startTandem()
    await seed('typing')
    const { ydoc } = await person('typing')
    const call = await streamCall('typing')
    const id = (await call('POST', '', { after: 'Risks' })).body.stream as string
    // "None known.", the paragraph the stream writes in front of
    const risks = () =>
      (ydoc.getXmlFragment('default').toArray() as Y.XmlElement[])
        .find((c) => c.toString().includes('None known.'))!
        .get(0) as Y.XmlText
    const typed: string[] = []
    let n = 0
    for (const chunk of cuts('First streamed paragraph, written slowly.\n\nSecond one.', 5)) {
      // the person types a character into the paragraph after the stream between chunks
      const ch = String.fromCharCode(97 + (n++ % 26))
      risks().insert(risks().length, ch)
      typed.push(ch)
      expect((await call('POST', `/${id}`, { text: chunk })).status).toBe(200)
    }
    expect((await call('POST', `/${id}/end`, {})).status).toBe(200)
    await eventually(async () => {
      const md = await markdownOf('typing')
      expect(md).toContain(`None known.${typed.join('')}`)
      expect(md).toContain('First streamed paragraph, written slowly.\n\nSecond one.')
    })
  })
})

describe('a stream in place of blocks', () => {
  it('replaces the blocks its text matched with its first step, ends as the same str_replace, and atomic puts them back', async () => {
    h = await startTandem()
    const OLD = 'Ship on Friday, after the review.'
    await seed('once')
    const once = await agent('once')
    const read = await once('GET', 'content')
    await once('PATCH', 'content', { base: read.body.base, edits: [{ old_text: OLD, new_text: STREAMED }] })
    const expected = await markdownOf('once')

    await seed('swap')
    const { ydoc } = await person('swap')
    const call = await streamCall('swap')
    const started = await call('POST', '', { replace: OLD })
    expect(started.status).toBe(201)
    const id = started.body.stream as string
    const chunks = cuts(STREAMED, 9)
    expect((await call('POST', `/${id}`, { text: chunks[0]! + chunks[1]! + chunks[2]! })).status).toBe(200)
    // the old paragraph went with the first step that showed text
    await eventually(() => expect(ydoc.getXmlFragment('default').toString()).not.toContain('Ship on Friday'))
    for (const chunk of chunks.slice(3)) expect((await call('POST', `/${id}`, { text: chunk })).status).toBe(200)
    expect((await call('POST', `/${id}/end`, {})).status).toBe(200)
    expect(await markdownOf('swap')).toBe(expected)

    await seed('undo')
    const undo = await streamCall('undo')
    const u = (await undo('POST', '', { replace: `## Risks\n\nNone known.`, atomic: true })).body.stream as string
    await undo('POST', `/${u}`, { text: 'Replaced risks.\n\nAnd more' })
    expect(await markdownOf('undo')).toBe(
      '# Plan\n\nShip on Friday, after the review.\n\nReplaced risks.\n\nAnd more\n',
    )
    expect((await undo('DELETE', `/${u}`)).status).toBe(200)
    expect(await markdownOf('undo')).toBe(SEED)

    // only whole blocks, matched once
    expect((await undo('POST', '', { replace: 'on Friday' })).status).toBe(422)
    const missing = await undo('POST', '', { replace: 'Ship on Monday.' })
    expect(missing.status).toBe(409)
    expect(missing.body.error).toMatch(/^replace does not occur in the document/)
  })
})

/** A one-request stream into `doc`: the body is written piece by piece; `answer` settles with the reply. */
async function pouring(doc: string, query: string, contentType: string) {
  const token = await agentToken(doc, false)
  const req = http.request(`${h.httpUrl}/stream/v1/acme/${doc}?${query}&yauth=${token}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
  })
  req.on('error', () => {}) // a test that cuts the request sees it on the server's side
  const answer = new Promise<{ status: number; body: Json }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Json }))
      res.on('error', reject)
    })
  })
  answer.catch(() => {})
  const write = (piece: string | Buffer) => new Promise<void>((r) => req.write(piece, () => r()))
  return { req, write, answer }
}

describe('a Markdown stream in one request', () => {
  it('shows the body as it arrives, raw or NDJSON, and ends as one write of the same Markdown', async () => {
    h = await startTandem()
    await seed('once')
    const once = await agent('once')
    const read = await once('GET', 'content')
    await once('PATCH', 'content', { base: read.body.base, edits: [{ insert: STREAMED, after: 'Risks' }] })
    const expected = await markdownOf('once')

    // raw Markdown, chunked: each paragraph is in the person's editor before the next is sent,
    // a character cut between two pieces waits for its other half
    await seed('raw')
    const { ydoc } = await person('raw')
    const raw = await pouring('raw', 'after=Risks', 'text/markdown')
    const text = () => ydoc.getXmlFragment('default').toString()
    await raw.write('Café ')
    await eventually(() => expect(text()).toContain('Café'))
    const euro = Buffer.from('€')
    await raw.write(Buffer.concat([Buffer.from('costs 5 '), euro.subarray(0, 1)]))
    await raw.write(Buffer.concat([euro.subarray(1), Buffer.from('.\n\nThen ')]))
    await eventually(() => expect(text()).toContain('costs 5 €.'))
    expect(rawMarkers(ydoc.getXmlFragment('default'))).toEqual([])
    await raw.write('**more**')
    raw.req.end()
    const ended = await raw.answer
    expect(ended.status).toBe(200)
    expect(ended.body.held).toBe(0)
    expect(await markdownOf('raw')).toContain('## Risks\n\nCafé costs 5 €.\n\nThen **more**\n\nNone known.')

    // NDJSON: the sender's own chunks, cut anywhere
    await seed('lines')
    const lines = await pouring('lines', 'after=Risks', 'application/x-ndjson')
    const chunks = cuts(STREAMED, 4)
    for (let i = 0; i < chunks.length; i += 5)
      await lines.write(
        chunks
          .slice(i, i + 5)
          .map((t) => `${JSON.stringify({ text: t })}\n`)
          .join(''),
      )
    lines.req.end()
    expect((await lines.answer).status).toBe(200)
    expect(await markdownOf('lines')).toBe(expected)
  })

  it('a bad line answers 400 and a sender gone stops the stream: atomic, nothing of it stays', async () => {
    h = await startTandem()
    await seed('bad')
    const bad = await pouring('bad', 'at=end&atomic=true', 'application/x-ndjson')
    await bad.write(`${JSON.stringify({ text: 'A paragraph.\n\nAnother' })}\n`)
    await eventually(async () => expect(await markdownOf('bad')).toContain('A paragraph.'))
    await bad.write('{"txt": 1}\n')
    bad.req.end()
    const refused = await bad.answer
    expect(refused.status).toBe(400)
    expect(refused.body.error).toBe('line 2 is not {"text": "..."}')
    expect(await markdownOf('bad')).toBe(SEED)

    await seed('gone')
    const gone = await pouring('gone', 'after=Plan&atomic=true', 'text/markdown')
    await gone.write('Written, then the sender went away.\n\nHalf')
    await eventually(async () => expect(await markdownOf('gone')).toContain('Written, then'))
    gone.req.destroy()
    await eventually(async () => expect(await markdownOf('gone')).toBe(SEED))

    // no address, or two: refused before anything is written
    const none = await pouring('gone', 'atomic=true', 'text/markdown')
    none.req.end('text')
    expect((await none.answer).status).toBe(400)
  })
})
