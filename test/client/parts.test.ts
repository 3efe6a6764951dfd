// @tandem/client's part reads and targeted edits against a real server (answers bounded at 1,000
// characters, so a section pages): the outline, a section by heading, find, paging with `more`, a
// str_replace from a section's base answered with the changed region, and a 409 no_match whose
// closest line the SDK error carries; the same calls on a live document's `rest`.
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TandemClient, TandemError, editRefusal, type DocumentRest, type SectionRead } from '@tandem/client'
import { grant, makeWorld, type World } from '../api/helpers.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
let w: World
let doc: DocumentRest
let client: TandemClient

const COSTS = Array.from({ length: 60 }, (_, i) => `Cost line ${i} of the report.`)
const MD = ['# Report', 'Opening words.', '## Costs', ...COSTS, '## Summary', 'All told, fine.'].join('\n\n') + '\n'

beforeAll(async () => {
  h = await startTandem({ maxReadChars: 1000 })
  w = await makeWorld(h, 'sdk-parts')
  await grant(h, w.doc.id, w.users.owner, 'edit')
  client = new TandemClient({ baseUrl: `http://127.0.0.1:${h.server.apiPort}`, apiKey: w.keys.owner })
  doc = client.document(w.doc.id)
  await doc.writeContent({ format: 'markdown', content: MD })
})
afterAll(async () => {
  await h?.close()
})

describe('DocumentRest part reads', () => {
  it('reads the outline, a section by heading and finds text at one base, paging with more', async () => {
    const { base } = await doc.content()
    // 65 blocks do not fit 1,000 characters: the headings, with the blocks between them as ranges
    const outline = await doc.outline()
    expect(outline).toMatchObject({
      view: 'outline',
      base,
      detail: 'headings',
      heading_levels: 2,
      block_count: 65,
      truncated: false,
    })
    expect(outline.entries.map((e) => e.kind)).toEqual(['heading', 'blocks', 'heading', 'blocks', 'heading', 'blocks'])
    const summary = outline.entries[4]!
    expect(summary).toMatchObject({ kind: 'heading', level: 2, text: 'Summary' })
    const costs = outline.entries[3]!
    if (costs.kind !== 'blocks' || !('last' in costs)) throw new Error('not a range')
    expect(costs).toMatchObject({ count: 60, line: 7, end: 125 })
    // the outline of that range lists every block, past the bound: its pages are every entry once
    const ranged = await doc.outline({ blocks: `${costs.id}..${costs.last}` })
    expect(ranged).toMatchObject({ detail: 'blocks', block_count: 60, truncated: true })
    const entries = [...ranged.entries]
    for (let page = ranged; page.next;) entries.push(...(page = await doc.more(page.next)).entries)
    expect(entries.map((e) => e.line)).toEqual(COSTS.map((_, i) => 7 + 2 * i))

    expect(await doc.section({ heading: 'Summary' })).toMatchObject({
      view: 'section',
      base,
      content: '## Summary\n\nAll told, fine.\n',
      blocks: [{ id: summary.id }, { kind: 'paragraph' }],
      truncated: false,
    })
    expect((await doc.section({ heading: summary.id })).content).toBe('## Summary\n\nAll told, fine.\n')
    expect((await doc.range({ lines: '1-3' })).content).toBe('# Report\n\nOpening words.\n')

    // the Costs section pages; its pages put together are the section, once, at the first page's base
    const pages: SectionRead[] = [await doc.section({ heading: 'Costs' })]
    while (pages.at(-1)!.next) pages.push(await doc.more(pages.at(-1)!.next!))
    expect(pages.length).toBeGreaterThan(1)
    expect(pages.every((p) => p.base === base && p.view === 'section')).toBe(true)
    expect(pages.map((p) => p.content).join('')).toBe(['## Costs', ...COSTS].join('\n\n') + '\n')

    // 11 matches with their context pass the bound: `more` reads on at the same base
    const found = await doc.find('cost LINE 4', { ignore_case: true, context: 0, heading: 'Costs' })
    expect(found).toMatchObject({ view: 'find', base, query: 'cost LINE 4', truncated: true })
    expect(found.matches[0]).toMatchObject({
      id: entries[4]!.id,
      line: 15,
      column: 1,
      match: 'Cost line 4',
      context: 'Cost line 4 of the report.',
      context_line: 15,
    })
    const matches = [...found.matches]
    for (let page = found; page.next;) matches.push(...(page = await doc.more(page.next)).matches)
    expect(matches.map((m) => m.line)).toEqual([4, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49].map((i) => 7 + 2 * i))
    expect((await doc.find('Cost line 4', { limit: 2 })).matches).toHaveLength(2)
  })
})

describe('DocumentRest.edit', () => {
  it("replaces text from a section's base and answers the new base with the changed region", async () => {
    const s = await doc.section({ heading: 'Summary' })
    const written = await doc.edit([{ old_text: 'All told, fine.', new_text: 'All told, good.' }], { base: s.base })
    expect(written).toMatchObject({ applied: true, root: 'default' })
    expect(written.base).not.toBe(s.base)
    expect(written.changes).toHaveLength(1)
    expect(written.changes![0]).toMatchObject({ line: s.line, end: s.end, content: '## Summary\n\nAll told, good.\n' })
    expect(written.changes![0]!.blocks).toEqual([s.blocks[1]!.id])
    // the new base reads what the edit left
    expect((await doc.section({ heading: 'Summary', base: written.base! })).content).toBe(
      '## Summary\n\nAll told, good.\n',
    )

    const inserted = await doc.edit([{ insert: 'A closing line.', after: 'Summary' }, { delete: s.blocks[1]!.id }], {
      base: written.base!,
    })
    expect(inserted.applied).toBe(true)
    expect((await doc.section({ heading: 'Summary' })).content).toBe('## Summary\n\nA closing line.\n')
  })

  it('surfaces a 409 no_match with the closest line, and several_matches with their lines, on the TandemError', async () => {
    const { base } = await doc.section({ heading: 'Costs' })
    const e = await doc
      .edit([{ old_text: 'Cost line 7 of the reprot.', new_text: 'x' }], { base })
      .catch((err: unknown) => err)
    expect(e).toBeInstanceOf(TandemError)
    expect(e).toMatchObject({ status: 409, code: 'no_match' })
    const refusal = editRefusal(e)
    expect(refusal).toMatchObject({
      code: 'no_match',
      edit: 0,
      base,
      closest: { line: 21, text: 'Cost line 7 of the report.' },
    })
    expect(refusal!.closest!.matched_chars).toBeGreaterThanOrEqual('Cost line 7 of the rep'.length)

    const several = editRefusal(
      await doc.edit([{ old_text: 'Cost line 1', new_text: 'x' }]).catch((err: unknown) => err),
    )
    expect(several).toMatchObject({
      code: 'several_matches',
      count: 11,
      lines: [9, 27, 29, 31, 33, 35, 37, 39, 41, 43, 45],
    })
    // anything else is not an edit refusal
    expect(editRefusal(await doc.section({ heading: 'Nowhere' }).catch((err: unknown) => err))).toBeNull()
    expect((await doc.content()).content).toContain('Cost line 7 of the report.')
  })

  it("reads and edits through a live document's rest on its own token", async () => {
    const live = await client.openDocument(w.doc.id, {
      WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    })
    try {
      await live.whenSynced()
      const s = await live.rest.range({ lines: '1-3' })
      expect(s.content).toBe('# Report\n\nOpening words.\n')
      const w2 = await live.rest.edit([{ old_text: 'Opening words.', new_text: 'Opening words, live.' }], {
        base: s.base,
      })
      expect(w2.applied).toBe(true)
      expect((await live.rest.find('live', { context: 0 })).matches).toMatchObject([{ line: 3, match: 'live' }])
    } finally {
      live.destroy()
    }
  })
})
