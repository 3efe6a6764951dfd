// The warm worker's documents and the views of their bases, driven in this thread: a part read
// answers from the view of the base it names (kept, the document now, or built from the state the
// server sends), a targeted edit leaves the view after it named by the base the server gives its
// update, and a document's views go when its copy is dropped. Every answer is checked against a
// cold reading of the same state.
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { SectionRead } from '@tandem/api/content'
import { computeEdit } from './formats.js'
import { buildParts } from './parts-model.js'
import { WarmDocs, type ViewAt, type WarmJob, type WarmReply } from './warm-jobs.js'

const KEY = 'acme/doc\nepoch'
const MARKDOWN = ['# Title', 'First paragraph.', '## Part', 'Second paragraph.', 'Third paragraph.'].join('\n\n') + '\n'

function stateOf(markdown: string): Uint8Array {
  const doc = new Y.Doc()
  Y.applyUpdate(doc, computeEdit(new Uint8Array([0, 0]), { format: 'markdown', content: markdown, root: null }).update!)
  return Y.encodeStateAsUpdate(doc)
}

const at = (form: string, now: boolean, state?: Uint8Array): ViewAt => ({
  form,
  base: `${form}.tag`,
  now,
  ...(state ? { state } : {}),
})

const whole = (at: ViewAt): WarmJob => ({
  kind: 'part',
  at,
  root: null,
  ask: {
    query: {
      view: 'range',
      root: null,
      base: at.base,
      selection: { by: 'lines', from: 1, to: null },
      offset: 0,
      limit: null,
      find: null,
    },
  },
  budget: 80_000,
})

let id = 1
function ok(docs: WarmDocs, job: WarmJob, feed: { full: Uint8Array } | { updates: Uint8Array[] } = { updates: [] }) {
  const reply: WarmReply = docs.run({ id: id++, key: KEY, feed, job })
  if (!('ok' in reply)) throw new Error(`not answered: ${JSON.stringify(reply)}`)
  return reply.ok as Record<string, unknown>
}

describe('the views of a warm document', () => {
  it('answer from the document now, keep that view by its base, and need the state for a base they never saw', () => {
    const docs = new WarmDocs()
    const state = stateOf(MARKDOWN)
    const first = ok(docs, whole(at('3', true)), { full: state }) as unknown as SectionRead
    expect(first).toMatchObject({ base: '3.tag', content: MARKDOWN, truncated: false })
    // the document moves on; the view of base 3 is still the one read
    const later = computeEdit(state, { format: 'markdown', content: MARKDOWN + '\nAdded.\n', root: null }).update!
    expect(ok(docs, whole(at('3', false)), { updates: [later] })).toMatchObject({ content: MARKDOWN })
    // a base the worker never held: it asks for the state, then builds the view from it
    expect(ok(docs, whole(at('2', false)))).toEqual({ needsState: true })
    const older = stateOf('# Older\n')
    expect(ok(docs, whole(at('2', false, older)))).toMatchObject({ content: buildParts(older, null).markdown })
    expect(ok(docs, whole(at('2', false)))).toMatchObject({ content: '# Older\n' })
  })

  it('name the view a targeted edit leaves by the base its update gets, and only then', () => {
    const docs = new WarmDocs()
    const state = stateOf(MARKDOWN)
    ok(docs, whole(at('3', true)), { full: state })
    const edit: WarmJob = {
      kind: 'targeted',
      at: at('3', false),
      root: null,
      ops: [{ kind: 'replace', old: 'Second paragraph.', new: 'Second, edited.', all: false }],
      context: 1,
    }
    const done = ok(docs, edit)
    expect(done).toMatchObject({
      update: expect.any(Uint8Array),
      changes: [{ content: expect.stringContaining('Second, edited.') }],
    })
    expect(done).not.toHaveProperty('model') // the view after the edit stays in the worker
    expect(ok(docs, whole(at('3~9', false)))).toEqual({ needsState: true }) // not named yet
    // the name comes with the next call, and is given before that call runs
    const named = (form: string) =>
      docs.run({ id: id++, key: KEY, feed: { updates: [] }, job: whole(at(form, false)), label: { form, root: null } })
    const after = Y.mergeUpdates([state, done.update as Uint8Array])
    expect(named('3~9')).toMatchObject({ ok: { content: buildParts(after, null).markdown } })
    expect(ok(docs, whole(at('3~9', false)))).toMatchObject({ content: buildParts(after, null).markdown })
    // a label with nothing held (a suggestion, a failed write) names nothing
    expect(named('4')).toMatchObject({ ok: { needsState: true } })
  })

  it('go with the copy when it is dropped, and a refused read keeps both', () => {
    const docs = new WarmDocs()
    ok(docs, whole(at('3', true)), { full: stateOf(MARKDOWN) })
    const missingHeading: WarmJob = {
      ...whole(at('3', false)),
      ask: {
        query: {
          view: 'section',
          root: null,
          base: '3.tag',
          selection: { by: 'heading', heading: 'No such heading' },
          offset: 0,
          limit: null,
          find: null,
        },
      },
    } as WarmJob
    const refused = docs.run({ id: id++, key: KEY, feed: { updates: [] }, job: missingHeading })
    expect(refused).toMatchObject({ refused: { code: 'not_found' } })
    expect(ok(docs, whole(at('3', false)))).toMatchObject({ content: MARKDOWN }) // copy and view kept
    docs.run({ id: id++, key: KEY, evict: true })
    expect(docs.run({ id: id++, key: KEY, feed: { updates: [] }, job: whole(at('3', false)) })).toMatchObject({
      missing: true,
    })
    ok(docs, whole(at('5', true)), { full: stateOf('# Fresh\n') })
    expect(ok(docs, whole(at('3', false)))).toEqual({ needsState: true })
  })
})
