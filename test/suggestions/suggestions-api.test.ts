// Suggestions on a real server over LevelDB and PostgreSQL: an agent's change held aside while the
// live document stays as it is; a person types meanwhile; a reviewer accepts one hunk of three and
// exactly that hunk lands (merged with the person's typing, in every client), rejects the rest;
// decisions are final (409), attributed, survive a restart, and refuse bad input.
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { fragmentToPm } from '../../src/content/fragment-read.js'
import { BACKENDS, type Backend } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
let backend: Backend
afterEach(async () => h?.close())

type Json = Record<string, any>

async function open(overrides: Record<string, unknown> = {}) {
  h = await startTandem({ ...(await backend.overrides()), ...overrides }, { api: false })
}

const token = async (doc: string, sub: string, acc: 'r' | 'rw' = 'rw', attr?: Record<string, string>) =>
  (await mintToken(h.server.deps.keys, { org: 'acme', doc, sub, acc, ttlSec: 600, ...(attr ? { attr } : {}) })).token

async function call(method: string, path: string, tok: string, body?: unknown) {
  const sep = path.includes('?') ? '&' : '?'
  const res = await fetch(`${h.httpUrl}/${path}${sep}yauth=${tok}`, {
    method,
    ...(body === undefined
      ? {}
      : {
          body: typeof body === 'string' ? body : JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

const texts = (d: Y.Doc) =>
  (fragmentToPm(d.getXmlFragment('default')).content ?? []).map((p) => (p.content ?? []).map((t) => t.text).join(''))
const ORIGINAL = ['One.', 'Two.', 'Three.', 'Four.', 'Five.', 'Six.', 'Seven.']
const md = (ps: string[]) => ps.join('\n\n') + '\n'

describe.each(BACKENDS)('suggestions on $name', (b) => {
  beforeAll(() => {
    backend = b
  })

  it("a reviewer accepts hunk 2 of 3: exactly that lands, beside what a person typed meanwhile; rejecting the rest leaves the person's document", async () => {
    await open()
    const doc = 'plan'
    const agent = await token(doc, 'agent', 'rw', { source: 'ai' })
    const reviewer = await token(doc, 'rita')
    await call('PATCH', `content/v1/acme/${doc}`, reviewer, { format: 'markdown', content: md(ORIGINAL) })
    const read = (await call('GET', `content/v1/acme/${doc}`, agent)).body
    const wanted = [
      'One, by the agent.',
      'Two.',
      'Three.',
      'Four, by the agent.',
      'Five.',
      'Six.',
      'Seven, by the agent.',
    ]
    const made = await call('POST', `suggestions/v1/acme/${doc}`, agent, {
      format: 'markdown',
      content: md(wanted),
      base: read.base,
    })
    expect(made.status).toBe(201)
    expect(made.body.suggestion).toMatchObject({ status: 'open', by: 'agent', attributions: { source: 'ai' } })
    expect(made.body.hunks).toHaveLength(3)
    const id = made.body.suggestion.id as string

    // The live document is unchanged; a person types into paragraph 3 meanwhile.
    const person = new Y.Doc()
    await synced(h.provider('acme', doc, await token(doc, 'pat'), person))
    expect(texts(person)).toEqual(ORIGINAL)
    ;((person.getXmlFragment('default').get(2) as Y.XmlElement).get(0) as Y.XmlText).insert(0, 'Pat: ')
    await eventually(async () =>
      expect((await call('GET', `content/v1/acme/${doc}`, reviewer)).body.content).toContain('Pat: Three.'),
    )

    const shown = await call('GET', `suggestions/v1/acme/${doc}/${id}`, reviewer)
    expect(shown.body.hunks.map((x: Json) => [x.before, x.after, x.status])).toEqual([
      ['One.\n', 'One, by the agent.\n', 'open'],
      ['Four.\n', 'Four, by the agent.\n', 'open'],
      ['Seven.\n', 'Seven, by the agent.\n', 'open'],
    ])
    expect(shown.body.preview).toBe(
      md(['One, by the agent.', 'Two.', 'Pat: Three.', 'Four, by the agent.', 'Five.', 'Six.', 'Seven, by the agent.']),
    )
    // marked like a changeset: what the suggestion deletes stays in place, marked, beside what it inserts
    const marked = await call('GET', `suggestions/v1/acme/${doc}/${id}?format=delta`, reviewer)
    const para = (t: string) => ({ type: 'paragraph', content: [{ type: 'text', text: t }] })
    expect(marked.body.preview.slice(0, 4)).toEqual([
      { insert: para('One.'), attribution: { delete: ['agent'] }, hunk: made.body.hunks[0] },
      { insert: para('One, by the agent.'), attribution: { insert: ['agent'] }, hunk: made.body.hunks[0] },
      { insert: para('Two.') },
      { insert: para('Pat: Three.') },
    ])
    expect(marked.body.hunks[0]).toMatchObject({ before: [para('One.')], after: [para('One, by the agent.')] })
    // each hunk word by word: in Markdown for a Markdown answer, in the blocks' text otherwise
    expect(shown.body.hunks[0].words).toEqual([
      { op: 'delete', text: 'One.' },
      { op: 'insert', text: 'One, by the agent.' },
      { op: 'equal', text: '\n' },
    ])
    expect(marked.body.hunks[1].words).toEqual([
      { op: 'delete', text: 'Four.' },
      { op: 'insert', text: 'Four, by the agent.' },
    ])

    const hunk2 = made.body.hunks[1] as string
    const acc = await call('POST', `suggestions/v1/acme/${doc}/${id}/accept`, reviewer, { hunks: [hunk2] })
    expect(acc.status).toBe(200)
    expect(acc.body).toMatchObject({ applied: true, suggestion: { status: 'open', accepted_hunks: [hunk2] } })
    const afterAccept = ['One.', 'Two.', 'Pat: Three.', 'Four, by the agent.', 'Five.', 'Six.', 'Seven.']
    await eventually(() => expect(texts(person)).toEqual(afterAccept))
    // accepting the same hunk again changes nothing
    expect(
      (await call('POST', `suggestions/v1/acme/${doc}/${id}/accept`, reviewer, { hunks: [hunk2] })).body.applied,
    ).toBe(false)

    const rej = await call('POST', `suggestions/v1/acme/${doc}/${id}/reject`, reviewer)
    expect(rej.body.suggestion).toMatchObject({ status: 'partially_accepted', decided_by: 'rita' })
    expect((await call('GET', `content/v1/acme/${doc}`, reviewer)).body.content).toBe(md(afterAccept))
    expect(texts(person)).toEqual(afterAccept)
    const again = await call('POST', `suggestions/v1/acme/${doc}/${id}/accept`, reviewer)
    expect([again.status, again.body.status]).toEqual([409, 'partially_accepted'])
    expect(
      (await call('GET', `suggestions/v1/acme/${doc}?status=partially_accepted`, reviewer)).body.suggestions.map(
        (s: Json) => s.id,
      ),
    ).toEqual([id])

    // the accept is the reviewer's update, attributed to the suggestion and its author
    const act = await call('GET', `activity/v1/acme/${doc}?order=asc&group=false`, reviewer)
    expect(act.body.entries.at(-1)).toMatchObject({ by: 'rita', attributes: { suggestion: id, suggested_by: 'agent' } })
  })

  it('a raw update accepted whole after a restart; accepting twice is 409; the author may withdraw but not accept', async () => {
    await open()
    const doc = 'raw'
    const ann = await token(doc, 'ann')
    await call('PATCH', `content/v1/acme/${doc}`, ann, { format: 'text', content: 'hello world' })
    const base = (await call('GET', `content/v1/acme/${doc}?format=text`, ann)).body
    const d = new Y.Doc()
    Y.applyUpdate(d, new Uint8Array(Buffer.from((await call('GET', `ydoc/v1/acme/${doc}`, ann)).body.doc, 'base64')))
    const sv = Y.encodeStateVector(d)
    d.getText('text').insert(5, ' brave')
    const update = Buffer.from(Y.encodeStateAsUpdate(d, sv)).toString('base64')
    const bot = await token(doc, 'bot')
    const made = await call('POST', `suggestions/v1/acme/${doc}`, bot, { update, base: base.base })
    expect(made.status).toBe(201)
    expect(made.body.hunks).toEqual([]) // a Y.Text: decided whole
    const id = made.body.suggestion.id

    expect((await call('POST', `suggestions/v1/acme/${doc}/${id}/accept`, bot)).status).toBe(403)
    expect((await call('GET', `suggestions/v1/acme/${doc}/${id}?format=delta`, ann)).body.preview).toEqual([
      { insert: 'hello ' },
      { insert: 'brave ', attribution: { insert: ['bot'] } },
      { insert: 'world' },
    ])
    await h.restart()
    const ok = await call('POST', `suggestions/v1/acme/${doc}/${id}/accept`, ann)
    expect(ok.body).toMatchObject({ applied: true, suggestion: { status: 'accepted', decided_by: 'ann' } })
    expect((await call('GET', `content/v1/acme/${doc}?format=text`, ann)).body.content).toBe('hello brave world')
    const twice = await call('POST', `suggestions/v1/acme/${doc}/${id}/accept`, ann)
    expect([twice.status, twice.body.status]).toEqual([409, 'accepted'])
    expect((await call('GET', `content/v1/acme/${doc}?format=text`, ann)).body.content).toBe('hello brave world')

    const second = await call('POST', `suggestions/v1/acme/${doc}`, bot, {
      format: 'text',
      content: 'hello brave new world',
    })
    const withdrawn = await call('POST', `suggestions/v1/acme/${doc}/${second.body.suggestion.id}/reject`, bot)
    expect(withdrawn.body.suggestion.status).toBe('withdrawn')
    expect((await call('GET', `content/v1/acme/${doc}?format=text`, ann)).body.content).toBe('hello brave world')
  })

  it("a branch's changes become one suggestion on main: accepted, main reads as the branch where main had not changed, and keeps its own edits where it had", async () => {
    await open()
    const doc = 'branchy'
    const ann = await token(doc, 'ann')
    await call('PATCH', `content/v1/acme/${doc}`, ann, { format: 'markdown', content: md(['One.', 'Two.', 'Three.']) })
    const draft = (
      await mintToken(h.server.deps.keys, { org: 'acme', doc, sub: 'bob', acc: 'rw', ttlSec: 600, branch: 'draft' })
    ).token
    const forked = (await call('GET', `content/v1/acme/${doc}`, draft)).body // the first open forks main
    expect(forked.content).toBe(md(['One.', 'Two.', 'Three.']))
    const onDraft = await call('PATCH', `content/v1/acme/${doc}`, draft, {
      format: 'markdown',
      content: md(['One, draft.', 'Two.', 'Three, draft.']),
      base: forked.base,
    })
    expect(onDraft.body.applied).toBe(true)
    // main moves on meanwhile, in a paragraph the branch left alone
    await call('PATCH', `content/v1/acme/${doc}`, ann, {
      format: 'markdown',
      content: md(['One.', 'Two, main.', 'Three.']),
    })
    expect((await call('GET', `content/v1/acme/${doc}`, ann)).body.content).toBe(md(['One.', 'Two, main.', 'Three.']))

    const made = await call('POST', `suggestions/v1/acme/${doc}`, await token(doc, 'bob'), { branch: 'draft' })
    expect(made.status).toBe(201)
    expect(made.body.suggestion).toMatchObject({ by: 'bob', attributions: { branch: 'draft' } })
    const shown = await call('GET', `suggestions/v1/acme/${doc}/${made.body.suggestion.id}`, ann)
    expect(shown.body.hunks.map((x: Json) => [x.before, x.after])).toEqual([
      ['One.\n', 'One, draft.\n'],
      ['Three.\n', 'Three, draft.\n'],
    ])
    const acc = await call('POST', `suggestions/v1/acme/${doc}/${made.body.suggestion.id}/accept`, ann)
    expect(acc.body).toMatchObject({ applied: true, suggestion: { status: 'accepted' } })
    expect((await call('GET', `content/v1/acme/${doc}`, ann)).body.content).toBe(
      md(['One, draft.', 'Two, main.', 'Three, draft.']),
    )
    // a branch with nothing of its own, and one that does not exist
    const fresh = (
      await mintToken(h.server.deps.keys, { org: 'acme', doc, sub: 'bob', acc: 'rw', ttlSec: 600, branch: 'idle' })
    ).token
    await call('GET', `content/v1/acme/${doc}`, fresh)
    expect((await call('POST', `suggestions/v1/acme/${doc}`, ann, { branch: 'idle' })).status).toBe(422)
    expect((await call('POST', `suggestions/v1/acme/${doc}`, ann, { branch: 'nope' })).status).toBe(404)
  })

  it('a document holds at most --max-open-suggestions open ones; deciding one makes room', async () => {
    await open({ maxOpenSuggestions: 2 })
    const doc = 'bounded'
    const ann = await token(doc, 'ann')
    await call('PATCH', `content/v1/acme/${doc}`, ann, { format: 'text', content: 'x' })
    const bot = await token(doc, 'bot')
    const made = [
      await call('POST', `suggestions/v1/acme/${doc}`, bot, { format: 'text', content: 'x1' }),
      await call('POST', `suggestions/v1/acme/${doc}`, bot, { format: 'text', content: 'x2' }),
    ]
    expect(made.map((m) => m.status)).toEqual([201, 201])
    const third = await call('POST', `suggestions/v1/acme/${doc}`, bot, { format: 'text', content: 'x3' })
    expect([third.status, third.body.error]).toEqual([409, expect.stringMatching(/at most 2 open suggestions/)])
    await call('POST', `suggestions/v1/acme/${doc}/${made[0]!.body.suggestion.id}/reject`, ann)
    expect((await call('POST', `suggestions/v1/acme/${doc}`, bot, { format: 'text', content: 'x3' })).status).toBe(201)
  })

  it('refuses bad input and changes nothing', async () => {
    await open()
    const doc = 'bad'
    const ann = await token(doc, 'ann')
    await call('PATCH', `content/v1/acme/${doc}`, ann, { format: 'markdown', content: md(['A.', 'B.']) })
    const made = await call('POST', `suggestions/v1/acme/${doc}`, await token(doc, 'bot'), {
      format: 'markdown',
      content: md(['A!', 'B.']),
    })
    const id = made.body.suggestion.id
    const reader = await token(doc, 'rob', 'r')
    const cases: [string, string, string, unknown, number][] = [
      ['POST', `suggestions/v1/acme/${doc}`, reader, { format: 'markdown', content: 'x' }, 403],
      ['POST', `suggestions/v1/acme/${doc}/${id}/accept`, reader, undefined, 403],
      ['POST', `suggestions/v1/acme/${doc}/nope/accept`, ann, undefined, 404],
      ['POST', `suggestions/v1/acme/${doc}/${id}/merge`, ann, undefined, 404],
      ['POST', `suggestions/v1/acme/${doc}/${id}/accept`, ann, { hunks: ['h-not-one'] }, 422],
      ['POST', `suggestions/v1/acme/${doc}/${id}/accept`, ann, { hunks: 'all' }, 400],
      ['POST', `suggestions/v1/acme/${doc}`, ann, { update: 'AAEC////' }, 400],
      ['POST', `suggestions/v1/acme/${doc}`, ann, { format: 'markdown', content: md(['A.', 'B.']) }, 422],
      ['GET', `suggestions/v1/acme/${doc}?status=maybe`, ann, undefined, 400],
      ['GET', `suggestions/v1/acme/${doc}/nope`, ann, undefined, 404],
    ]
    for (const [method, path, tok, body, status] of cases)
      expect([path, (await call(method, path, tok, body)).status]).toEqual([path, status])
    expect((await call('GET', `content/v1/acme/${doc}`, ann)).body.content).toBe(md(['A.', 'B.']))
    expect((await call('GET', `suggestions/v1/acme/${doc}/${id}`, ann)).body.suggestion.status).toBe('open')
  })
})
