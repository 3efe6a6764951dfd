// The visible agent on a real server: an agent's content write puts it in the room's awareness,
// named and marked as an agent, its caret (Yjs relative positions as y-prosemirror reads them) at
// the end of what it wrote; people on a y-websocket and a Hocuspocus provider see it. One
// awareness client per agent session, whatever the number of calls. The presence route shows
// where it looks without editing, and takes it away; a TTL after its last call it goes by itself.
import { afterEach, describe, expect, it } from 'vitest'
import type { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { hocusClients, authenticated, type HocusClients } from '../helpers/hocuspocus.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
let c: HocusClients | null = null
afterEach(async () => {
  c?.destroy()
  c = null
  await h?.close()
})

type Json = Record<string, any>
const SESSION = { id: 'mcp-1', name: 'Claude', model: 'claude-test' }

async function agentToken(doc: string, session: typeof SESSION | null = SESSION, acc: 'r' | 'rw' = 'rw') {
  const { token } = await mintToken(h.server.deps.keys, {
    org: 'acme',
    doc,
    sub: 'ann@example.com',
    acc,
    agent: true,
    ...(session ? { session } : {}),
    ttlSec: 600,
  })
  return token
}

async function call(path: string, token: string, method: string, body?: unknown) {
  const res = await fetch(`${h.httpUrl}/${path}?yauth=${token}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (res.status === 204 ? null : await res.json()) as Json }
}

const DOC = '# Plan\n\nShip on Friday, after the review.\n\n## Risks\n\n- the build\n- the docs\n'

async function seeded(doc: string): Promise<string> {
  const person = await h.token('acme', doc)
  const r = await call(`content/v1/acme/${doc}`, person, 'PATCH', { format: 'markdown', content: DOC })
  expect(r.status).toBe(200)
  return r.body.base as string
}

/** The agents a provider's awareness holds, by client id. */
function agentsSeen(p: { awareness: { getStates(): Map<number, Json> } | null }): [number, Json][] {
  return [...p.awareness!.getStates()].filter(([, s]) => s.user?.kind === 'agent')
}

/** The text a relative position sits in, and what of it comes before the position. */
function resolve(doc: Y.Doc, json: Json): { text: string; before: string } {
  const abs = Y.createAbsolutePositionFromRelativePosition(Y.createRelativePositionFromJSON(json), doc)
  expect(abs?.type).toBeInstanceOf(Y.XmlText)
  const text = (abs!.type as Y.XmlText)
    .toDelta()
    .map((d: { insert: string }) => d.insert)
    .join('')
  return { text, before: text.slice(0, abs!.index) }
}

async function person(doc: string): Promise<{ p: WebsocketProvider; ydoc: Y.Doc }> {
  const ydoc = new Y.Doc()
  const p = h.provider('acme', doc, await h.token('acme', doc, { sub: 'bob@example.com' }), ydoc)
  await synced(p)
  return { p, ydoc }
}

describe('an agent in the room', () => {
  it('is seen by people on both protocols, named, with its caret after the text it wrote, one client per session', async () => {
    h = await startTandem()
    const base = await seeded('seen')
    const { p, ydoc } = await person('seen')
    c = hocusClients()
    const hdoc = new Y.Doc()
    const hp = c.provider(
      c.socket(h.wsUrl),
      'acme/seen',
      await h.token('acme', 'seen', { sub: 'cy@example.com' }),
      hdoc,
    )
    await authenticated(hp)
    expect(agentsSeen(p)).toEqual([])

    const agent = await agentToken('seen')
    const r = await call('content/v1/acme/seen', agent, 'PATCH', {
      base,
      edits: [{ old_text: 'Ship on Friday', new_text: 'Ship on Monday' }],
    })
    expect(r.status).toBe(200)
    for (const [provider, doc] of [
      [p, ydoc],
      [hp, hdoc],
    ] as const) {
      await eventually(() => {
        const seen = agentsSeen(provider)
        expect(seen).toHaveLength(1)
        const [, state] = seen[0]!
        expect(state.user).toMatchObject({ name: 'Claude', kind: 'agent', model: 'claude-test' })
        expect(state.user.color).toMatch(/^#[0-9a-f]{6}$/)
        const head = resolve(doc, state.cursor.head)
        expect(head.text).toBe('Ship on Monday, after the review.')
        expect(head.before).toBe('Ship on Mon') // the characters it wrote: "Fri" became "Mon"
      })
    }
    const [firstId] = agentsSeen(p)[0]!

    // a second call of the same session moves the same client: its caret after the new text
    const r2 = await call('content/v1/acme/seen', agent, 'PATCH', {
      base: r.body.base,
      edits: [{ insert: 'Tell the team.', after: 'Risks' }],
    })
    expect(r2.status).toBe(200)
    await eventually(() => {
      const seen = agentsSeen(p)
      expect(seen.map(([id]) => id)).toEqual([firstId])
      expect(resolve(ydoc, seen[0]![1].cursor.head).before).toBe('Tell the team.')
    })
    expect(h.server.registry.agents.size).toBe(1)

    // another session of the same user is another agent in the room
    const other = await agentToken('seen', { id: 'mcp-2', name: 'Codex', model: 'x' })
    expect((await call('presence/v1/acme/seen', other, 'POST', { at: 'Plan' })).status).toBe(200)
    await eventually(() =>
      expect(
        agentsSeen(p)
          .map(([, s]) => s.user.name)
          .sort(),
      ).toEqual(['Claude', 'Codex']),
    )
  })

  it('shows where it looks without editing, over a heading or a quote, and leaves at once when done', async () => {
    h = await startTandem()
    await seeded('look')
    const { p, ydoc } = await person('look')
    const agent = await agentToken('look', SESSION, 'r') // looking needs no write access
    const entries = async () => {
      let n = 0
      for await (const _ of h.server.store.readLog('acme/look/main')) n++
      return n
    }
    const logged = await entries()

    const heading = await call('presence/v1/acme/look', agent, 'POST', { at: 'Risks' })
    expect(heading.status).toBe(200)
    expect(heading.body.block).toMatch(/^b-/)
    await eventually(() => {
      const [, s] = agentsSeen(p)[0]!
      expect(resolve(ydoc, s.cursor.anchor)).toEqual({ text: 'Risks', before: '' })
      expect(resolve(ydoc, s.cursor.head)).toEqual({ text: 'Risks', before: 'Risks' })
    })

    const quote = await call('presence/v1/acme/look', agent, 'POST', { quote: 'after the review' })
    expect(quote.status).toBe(200)
    await eventually(() => {
      const [, s] = agentsSeen(p)[0]!
      expect(resolve(ydoc, s.cursor.anchor).before).toBe('Ship on Friday, ')
      expect(resolve(ydoc, s.cursor.head).before).toBe('Ship on Friday, after the review')
    })
    expect(await entries()).toBe(logged) // nothing written

    const missing = await call('presence/v1/acme/look', agent, 'POST', { quote: 'not in the document' })
    expect({ status: missing.status, code: missing.body.code }).toEqual({ status: 409, code: 'conflict' })
    const empty = await call('presence/v1/acme/look', agent, 'POST', {})
    expect(empty.status).toBe(400)
    const people = await call('presence/v1/acme/look', await h.token('acme', 'look'), 'POST', { at: 'Risks' })
    expect(people.status).toBe(403)

    expect((await call('presence/v1/acme/look', agent, 'DELETE')).status).toBe(204)
    await eventually(() => expect(agentsSeen(p)).toEqual([]))
    expect(h.server.registry.agents.size).toBe(0)
  })

  it('goes by itself a TTL after its last call, and a person writing over REST is never shown', async () => {
    h = await startTandem({ agentPresenceTtl: 1 })
    const base = await seeded('ttl')
    const { p } = await person('ttl')
    const left = new Promise<void>((resolve) =>
      p.awareness.on('change', ({ removed }: { removed: number[] }) => removed.length && resolve()),
    )
    const r = await call('content/v1/acme/ttl', await agentToken('ttl', null), 'PATCH', {
      base,
      edits: [{ old_text: 'the docs', new_text: 'the manual' }],
    })
    expect(r.status).toBe(200)
    // without a session the agent is its identity
    await eventually(() => expect(agentsSeen(p).map(([, s]) => s.user.name)).toEqual(['ann@example.com']))
    await left
    expect(agentsSeen(p)).toEqual([])
    expect(h.server.registry.agents.size).toBe(0)

    const person2 = await h.token('acme', 'ttl')
    const w = await call('content/v1/acme/ttl', person2, 'PATCH', {
      edits: [{ old_text: 'the build', new_text: 'the builds' }],
    })
    expect(w.status).toBe(200)
    await eventually(() => expect(ydocText(p)).toContain('the builds'))
    expect(agentsSeen(p)).toEqual([])
    expect(h.server.registry.agents.size).toBe(0)
  })
})

const ydocText = (p: WebsocketProvider) => p.doc.getXmlFragment('default').toString()
