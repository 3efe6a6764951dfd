// @tandem/client's agent side on a real server, with an agent's API key: `document.agent()` shows
// people where it looks, streams Markdown from an async iterable (the end equals one write of it)
// with its caret in the room, cancels an aborted stream (atomic: nothing of it stays), and leaves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { TandemClient, type DocumentRest } from '@tandem/client'
import { createApiKey } from '../../src/control/api-keys.js'
import { grant, makeWorld, type World } from '../api/helpers.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
let w: World
let doc: DocumentRest

const MD = '# Notes\n\nA first paragraph.\n'
const STREAM = '## Added\n\nWritten **as it came**, in pieces.\n\n- one\n- two\n'

beforeAll(async () => {
  h = await startTandem()
  w = await makeWorld(h, 'sdk-agent')
  await grant(h, w.doc.id, w.users.owner, 'edit')
  const agentKey = (await createApiKey(h.server.deps.control.store, w.users.owner, 'bot', Date.now(), true)).key
  doc = new TandemClient({ baseUrl: `http://127.0.0.1:${h.server.apiPort}`, apiKey: agentKey }).document(w.doc.id)
  await doc.writeContent({ format: 'markdown', content: MD })
})
afterAll(async () => h?.close())

async function* pieces(text: string, size: number) {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size)
}

describe('document.agent()', () => {
  it('streams Markdown from an iterable, seen in the room, and ends as one write of it', async () => {
    const ydoc = new Y.Doc()
    const p = h.provider(w.workspaceId, w.doc.id, await h.token(w.workspaceId, w.doc.id, { sub: 'pat@x.org' }), ydoc)
    await synced(p)
    const agent = doc.agent()
    const shown = await agent.show({ at: 'Notes' })
    expect(shown.block).toMatch(/^b-/)
    const done = await agent.stream({ at: 'end' }, pieces(STREAM, 3))
    expect(done).toMatchObject({ held: 0, shown: STREAM.length })
    expect((await doc.content()).content).toBe(`${MD}\n${STREAM}`)
    await eventually(() =>
      expect(
        [...p.awareness.getStates().values()].some((s) => (s as { user?: { kind?: string } }).user?.kind === 'agent'),
      ).toBe(true),
    )
    await agent.done()
    await eventually(() =>
      expect(
        [...p.awareness.getStates().values()].some((s) => (s as { user?: { kind?: string } }).user?.kind === 'agent'),
      ).toBe(false),
    )
  })

  it('cancels an aborted stream: atomic, nothing of it stays', async () => {
    const before = (await doc.content()).content
    const abort = new AbortController()
    async function* slow() {
      yield 'A paragraph that will be '
      yield 'taken back.\n\nAnd another'
      abort.abort()
      yield ' never sent'
    }
    await expect(
      doc.agent().stream({ after: 'Notes' }, slow(), { atomic: true, signal: abort.signal }),
    ).rejects.toThrow()
    expect((await doc.content()).content).toBe(before)
  })
})
