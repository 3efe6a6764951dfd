// Part reads of the content route on a real server: the outline with stable block ids, a section
// by heading or by block ids, a range of lines that is exactly the slice of the whole Markdown
// read, paging that covers a part once, find with context, and 400s naming the bad parameter.
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { blockIdOf } from '../../src/content/block-id.js'
import { BACKENDS } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
afterEach(async () => h?.close())

type Json = Record<string, any>

async function get(doc: string, query: string) {
  const tok = await h.token('acme', doc)
  const res = await fetch(`${h.httpUrl}/content/v1/acme/${doc}?yauth=${tok}${query ? '&' + query : ''}`)
  return { status: res.status, body: (await res.json()) as Json }
}

async function write(doc: string, content: string) {
  const tok = await h.token('acme', doc)
  const res = await fetch(`${h.httpUrl}/content/v1/acme/${doc}?yauth=${tok}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ format: 'markdown', content }),
  })
  expect(res.status).toBe(200)
}

const para = (text: string) => {
  const p = new Y.XmlElement('paragraph')
  p.insert(0, [new Y.XmlText(text)])
  return p
}
const heading = (level: number, text: string) => {
  const e = new Y.XmlElement('heading')
  e.setAttribute('level', level as unknown as string)
  e.insert(0, [new Y.XmlText(text)])
  return e
}

const cursorOf = (c: Json) => Buffer.from(JSON.stringify(c)).toString('base64url')

/** Follows `next` from a first answer; every page's parts in order. */
async function allPages(doc: string, firstQuery: string) {
  const pages: Json[] = []
  let answer = await get(doc, firstQuery)
  for (;;) {
    expect(answer.status).toBe(200)
    pages.push(answer.body)
    if (!answer.body.next) return pages
    answer = await get(doc, `cursor=${answer.body.next}`)
  }
}

const DOC = `# Guide

Intro words for the guide.

## Install

Run the installer.

- step one
- step two

### Details

Fine print.

## Use

Open it and use it.
`

describe.each(BACKENDS)('part reads on $name', (b) => {
  it('the outline of what a person typed names each block by its Yjs item, and the ids hold through typing and a restart', async () => {
    h = await startTandem(await b.overrides(), { api: false })
    const ann = new Y.Doc()
    const p = h.provider('acme', 'typed', await h.token('acme', 'typed'), ann)
    await synced(p)
    const frag = ann.getXmlFragment('default')
    ann.transact(() =>
      frag.insert(0, [heading(1, 'Notes'), para('First thought.'), heading(2, 'Later'), para('Second thought.')]),
    )
    const ids = frag.toArray().map((e) => blockIdOf((e as Y.XmlElement)._item!.id))
    let outline: Json = {}
    await eventually(async () => {
      outline = (await get('typed', 'view=outline')).body
      expect(outline.entries).toHaveLength(4)
    })
    expect(outline).toMatchObject({
      view: 'outline',
      root: 'default',
      detail: 'blocks',
      block_count: 4,
      truncated: false,
    })
    expect(outline.entries).toEqual([
      { id: ids[0], kind: 'heading', level: 1, text: 'Notes', line: 1, end: 1, chars: 7 },
      { id: ids[1], kind: 'paragraph', text: 'First thought.', line: 3, end: 3, chars: 14 },
      { id: ids[2], kind: 'heading', level: 2, text: 'Later', line: 5, end: 5, chars: 8 },
      { id: ids[3], kind: 'paragraph', text: 'Second thought.', line: 7, end: 7, chars: 15 },
    ])
    // Ann types inside block 2, and adds blocks before and after it.
    ann.transact(() => {
      ;((frag.get(1) as Y.XmlElement).get(0) as Y.XmlText).insert(5, ' long')
      frag.insert(2, [para('Between.')])
      frag.insert(1, [para('Before.')])
    })
    await eventually(async () => expect((await get('typed', 'view=outline')).body.entries).toHaveLength(6))
    const after = (await get('typed', 'view=outline')).body.entries as Json[]
    expect(after.map((e) => e.text)).toEqual([
      'Notes',
      'Before.',
      'First long thought.',
      'Between.',
      'Later',
      'Second thought.',
    ])
    expect([after[0]!.id, after[2]!.id, after[4]!.id, after[5]!.id]).toEqual(ids)
    p.destroy()
    await h.restart()
    expect(((await get('typed', 'view=outline')).body.entries as Json[]).map((e) => e.id)).toEqual(
      after.map((e) => e.id),
    )
  })

  it('pages of a bounded read follow next through the document exactly once, at the base of the first page', async () => {
    h = await startTandem({ ...(await b.overrides()), maxReadChars: 1000 }, { api: false })
    const long = 'A line that goes on and on. '.repeat(150).trim()
    const md =
      Array.from({ length: 120 }, (_, i) =>
        i % 10 === 0 ? `## Part ${i / 10}` : i === 55 ? long : `Paragraph ${i} with some words in it.`,
      ).join('\n\n') + '\n'
    await write('long', md)
    const whole = (await get('long', '')).body
    const first = await get('long', 'view=range&lines=1-')
    expect(first.body.truncated).toBe(true)
    // Someone writes meanwhile: the pages still read the first page's base.
    await write('long', '# Gone\n')
    const pages = [first.body, ...(await allPages('long', `cursor=${first.body.next}`))]
    expect(pages.length).toBeGreaterThan(5)
    for (const p of pages) {
      expect(p.base).toBe(whole.base)
      expect(JSON.stringify({ content: p.content, blocks: p.blocks }).length).toBeLessThanOrEqual(1000 + 100)
    }
    expect(pages.map((p) => p.content).join('')).toBe(whole.content)
    expect(pages.at(-1)).toMatchObject({ truncated: false })
    expect(pages.at(-1)!.next).toBeUndefined()
  })

  it('a part read at the base of an earlier outline reads that state, after others changed the document', async () => {
    h = await startTandem(await b.overrides(), { api: false })
    await write('then', DOC)
    const outline = (await get('then', 'view=outline')).body
    const install = outline.entries.find((e: Json) => e.text === 'Install')
    await write('then', DOC.replace('Run the installer.', 'Run the new installer.'))
    const now = (await get('then', `view=section&heading=${install.id}`)).body
    expect(now.content).toContain('Run the new installer.')
    expect(now.base).not.toBe(outline.base)
    const then = (await get('then', `view=section&heading=${install.id}&base=${outline.base}`)).body
    expect(then).toMatchObject({ base: outline.base, line: 5 })
    expect(then.content).toContain('Run the installer.')
    expect((await get('then', `view=section&heading=${install.id}&base=41.AAAAAAAAAAAAAAAA`)).status).toBe(400)
  })
})

describe('part reads', () => {
  it('a section by heading text or id runs to the next heading of its level or higher, and is the slice of the whole read', async () => {
    h = await startTandem({}, { api: false })
    await write('guide', DOC)
    const whole = (await get('guide', '')).body
    const outline = (await get('guide', 'view=outline')).body
    expect(outline.base).toBe(whole.base)
    const install = outline.entries.find((e: Json) => e.text === 'Install')
    const byText = (await get('guide', 'view=section&heading=Install')).body
    expect(byText).toMatchObject({ view: 'section', base: whole.base, line: 5, end: 14, truncated: false })
    expect(byText.content).toBe(
      '## Install\n\nRun the installer.\n\n- step one\n- step two\n\n### Details\n\nFine print.\n',
    )
    expect(whole.content.includes(byText.content)).toBe(true)
    expect(byText.blocks.map((x: Json) => x.kind)).toEqual([
      'heading',
      'paragraph',
      'bulletList',
      'heading',
      'paragraph',
    ])
    expect((await get('guide', `view=section&heading=${install.id}`)).body.content).toBe(byText.content)
    expect((await get('guide', 'view=section&heading=details')).body.content).toBe('### Details\n\nFine print.\n')
    const ids = outline.entries.map((e: Json) => e.id)
    expect((await get('guide', `view=section&blocks=${ids[1]}..${ids[2]}`)).body.content).toBe(
      'Intro words for the guide.\n\n## Install\n',
    )
    const list = (await get('guide', `view=section&blocks=${ids[8]},${ids[1]}`)).body
    expect(list.parts).toEqual([
      { line: 3, end: 3, content: 'Intro words for the guide.\n' },
      { line: 18, end: 18, content: 'Open it and use it.\n' },
    ])
  })

  it('a range of lines is exactly those lines of the whole Markdown read, with offset and limit counting lines', async () => {
    h = await startTandem({}, { api: false })
    await write('guide', DOC)
    const lines = (await get('guide', '')).body.content.split('\n') as string[]
    const slice = (a: number, z: number) => lines.slice(a - 1, z).join('\n') + '\n'
    expect((await get('guide', 'view=range&lines=3-9')).body.content).toBe(slice(3, 9))
    expect((await get('guide', 'view=range&lines=9')).body.content).toBe(slice(9, 9))
    expect((await get('guide', 'view=range&lines=16-')).body).toMatchObject({
      line: 16,
      end: 18,
      content: slice(16, 18),
    })
    expect((await get('guide', 'view=range&lines=1-&offset=4&limit=3')).body).toMatchObject({
      line: 5,
      end: 7,
      content: slice(5, 7),
    })
    expect((await get('guide', 'view=range&lines=1-1000')).body.content).toBe(lines.join('\n'))
  })

  it('the outline of a document of 1,500 blocks fits 20 KB by listing headings and ranges, and says so', async () => {
    h = await startTandem({}, { api: false })
    const md =
      Array.from({ length: 1500 }, (_, i) =>
        i % 50 === 0
          ? `# Chapter ${i / 50}`
          : i % 10 === 0
            ? `## Section ${i}`
            : `Paragraph ${i} of the long document, with words.`,
      ).join('\n\n') + '\n'
    await write('big', md)
    const o = (await get('big', 'view=outline')).body
    expect(JSON.stringify(o).length).toBeLessThanOrEqual(20_000)
    expect(o).toMatchObject({ detail: 'headings', block_count: 1500, truncated: false })
    expect(o.note).toContain('ranges')
    const range = o.entries.find((e: Json) => e.kind === 'blocks')
    expect(range).toMatchObject({ count: 49 })
    const inner = (await get('big', `view=outline&blocks=${range.id}..${range.last}`)).body
    expect(inner).toMatchObject({ detail: 'blocks', block_count: 49 })
    const section = (await get('big', `view=section&blocks=${range.id}..${range.last}`)).body
    expect(section.content.split('\n\n')).toHaveLength(49)
  })

  it('an outline whose headings alone pass 20 KB pages them with next, every heading once, each page within 20 KB', async () => {
    h = await startTandem({}, { api: false })
    const md = Array.from({ length: 300 }, (_, i) => `## Topic ${i}\n\nA paragraph on topic ${i}.`).join('\n\n') + '\n'
    await write('topics', md)
    const pages = await allPages('topics', 'view=outline')
    expect(pages.length).toBeGreaterThan(1)
    for (const p of pages) expect(JSON.stringify(p).length).toBeLessThanOrEqual(20_000)
    const entries = pages.flatMap((p) => p.entries as Json[])
    expect(entries.filter((e) => e.kind === 'heading').map((e) => e.text)).toEqual(
      Array.from({ length: 300 }, (_, i) => `Topic ${i}`),
    )
    expect(entries.filter((e) => e.kind === 'blocks')).toHaveLength(300)
    expect(pages[0]).toMatchObject({ detail: 'headings', heading_levels: 2, truncated: true })
  })

  it('find answers matches with block id, line, column and context, bounded by limit with next', async () => {
    h = await startTandem({}, { api: false })
    await write('guide', DOC)
    const outline = (await get('guide', 'view=outline')).body
    const f = (await get('guide', 'view=find&query=step&context=1')).body
    expect(f).toMatchObject({ view: 'find', truncated: false })
    expect(f.matches).toEqual([
      {
        id: outline.entries[4].id,
        line: 9,
        column: 3,
        match: 'step',
        context: '\n- step one\n- step two',
        context_line: 8,
      },
      {
        id: outline.entries[4].id,
        line: 10,
        column: 3,
        match: 'step',
        context: '- step one\n- step two\n',
        context_line: 9,
      },
    ])
    const re = (
      await get(
        'guide',
        `view=find&regex=true&ignore_case=true&query=${encodeURIComponent('^#+ (install|use)$')}&limit=1`,
      )
    ).body
    expect(re.matches.map((m: Json) => m.line)).toEqual([5])
    expect(re.truncated).toBe(true)
    expect((await get('guide', `cursor=${re.next}`)).body.matches.map((m: Json) => m.line)).toEqual([16])
    // RE2 matches in linear time: what backtracks for ever elsewhere is a plain miss here.
    expect((await get('guide', `view=find&regex=true&query=${encodeURIComponent('(a+)+$')}`)).body.matches).toEqual([])
  })

  it('a malformed or unknown parameter is 400 naming it', async () => {
    h = await startTandem({}, { api: false })
    await write('guide', DOC)
    const { base } = (await get('guide', 'view=outline')).body
    const cases: [string, string, number?][] = [
      ['view=chapter', 'view'],
      ['view=section', 'heading'],
      ['view=range', 'lines'],
      ['view=range&lines=9-3', 'lines'],
      ['view=range&lines=a', 'lines'],
      ['view=section&heading=Install&lines=1-2', 'lines'],
      ['view=outline&offset=-1', 'offset'],
      ['view=outline&limit=0', 'limit'],
      ['view=outline&format=prosemirror', 'format'],
      ['view=outline&query=x', 'query'],
      ['view=find', 'query'],
      ['view=find&query=x&context=99', 'context'],
      [`view=find&regex=true&query=${encodeURIComponent('a{5000}')}`, 'query'],
      [`view=find&query=${'x'.repeat(501)}`, 'query'],
      ['view=section&blocks=nope', 'blocks'],
      ['cursor=bm90IGEgY3Vyc29y', 'cursor'],
      ['cursor=abc&view=outline', 'cursor'],
      [
        `cursor=${cursorOf({ v: 'find', b: base, r: null, s: [[1, 999_999]], q: 'x', x: false, i: false, k: 2, at: 0, n: 5 })}`,
        'cursor',
      ],
      [`cursor=${cursorOf({ v: 'range', b: base, r: null, c: [[0, 10_000_000]] })}`, 'cursor'],
      ['view=outline&sort=asc', 'sort'],
      ['view=section&heading=Nothing', 'heading', 404],
      ['view=section&blocks=b-zz-0', 'blocks', 404],
    ]
    for (const [query, param, status] of cases) {
      const r = await get('guide', query)
      expect([query, r.status]).toEqual([query, status ?? 400])
      expect(r.body.error).toMatch(new RegExp(`^${param}:`))
    }
  })
})
