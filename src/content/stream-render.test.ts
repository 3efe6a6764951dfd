// What a stream shows, cut at every point and at random chunk boundaries: always a prefix of what
// it will be, and never structure shown as text. Parsed, every block shown but the last is the
// final document's block, and the last is of the final block's kind with its text (marks and
// all) a beginning of the final block's: a heading appears as a heading, a list item as a list
// item, emphasis once it is emphasis, a table once it is a table.
import { describe, expect, it } from 'vitest'
import { markdownToPm } from './markdown-in.js'
import type { PmNode } from './pm-json.js'
import { openInlineAt, renderable } from './stream-render.js'

const SAMPLES = [
  '# Plan for the launch\n\nWe ship on **Monday**, after the _review_ and a `dry run`.\n\n## Risks\n\n- the build\n- the [docs](https://example.com/docs) and ~~old~~ notes\n\n1. first\n2. second\n',
  'Intro paragraph with a [link](http://x.org "t") and an ![image](a.png).\n\n> quoted *text* here\n> and more\n\n```js\nconst a = 1 * 2\n```\n\nAfter the code.\n',
  '| name | size |\n| --- | ---: |\n| alpha | 1 |\n| beta | 22 |\n\nA line with <b>html</b> and an &amp; entity and a \\* literal star.\n\n- [ ] task one\n- [x] task two\n\n---\n\nThe end.\n',
]

/** A block's inline content as (character, marks) pairs, nested blocks flattened in order. */
function marked(n: PmNode, marks: string[] = [], out: string[] = []): string[] {
  if (n.type === 'text') {
    const m = [...marks, ...(n.marks ?? []).map((x) => x.type)].sort().join('+')
    for (const ch of n.text ?? '') out.push(`${ch}|${m}`)
    return out
  }
  if (n.type === 'hardBreak' || n.type === 'image') out.push(`<${n.type}>|`)
  for (const c of n.content ?? []) marked(c, marks, out)
  return out
}

const shape = (n: PmNode): string =>
  `${n.type}(${(n.content ?? [])
    .filter((c) => c.type !== 'text')
    .map(shape)
    .join(',')})`

function consistent(shown: string, final: string): void {
  const a = markdownToPm(shown, 'tiptap').content ?? []
  const b = markdownToPm(final, 'tiptap').content ?? []
  expect(a.length).toBeLessThanOrEqual(b.length)
  a.forEach((block, i) => {
    const whole = b[i]!
    if (i < a.length - 1) return expect(block, `block ${i} of ${JSON.stringify(shown)}`).toEqual(whole)
    expect(block.type, JSON.stringify(shown)).toBe(whole.type)
    const [x, y] = [marked(block), marked(whole)]
    expect(y.slice(0, x.length), JSON.stringify(shown)).toEqual(x)
    // a list shows no item, a table no row, that the final one does not have as it is
    expect(shape(whole).startsWith(shape(block).replace(/\)+$/, '')), JSON.stringify(shown)).toBe(true)
  })
}

describe('what a Markdown stream may show', () => {
  it.each(SAMPLES.map((s, i) => [i, s] as const))(
    'sample %i: every prefix shows a beginning of the final document',
    (_, md) => {
      let before = ''
      for (let k = 0; k <= md.length; k++) {
        const shown = renderable(md.slice(0, k), false)
        expect(md.startsWith(shown)).toBe(true)
        consistent(shown, md)
        // it only grows: nothing shown is taken back
        expect(shown.startsWith(before), `${JSON.stringify(before)} then ${JSON.stringify(shown)}`).toBe(true)
        before = shown
      }
      expect(renderable(md, true)).toBe(md)
    },
  )

  it('holds back a bare marker, an open emphasis, an unclosed code span, link or tag', () => {
    expect(renderable('Text\n\n#', false)).toBe('Text\n\n')
    expect(renderable('Text\n\n- ', false)).toBe('Text\n\n')
    expect(renderable('A **bold', false)).toBe('A ')
    expect(renderable('A `code', false)).toBe('A ')
    expect(renderable('See [the docs](http://ex', false)).toBe('See ')
    expect(renderable('An <span', false)).toBe('An ')
    expect(renderable('| a | b |\n', false)).toBe('')
    expect(renderable('| a | b |\n| - | - |\n| 1 |', false)).toBe('| a | b |\n| - | - |\n')
    expect(openInlineAt('plain text')).toBe('plain text'.length)
    expect(openInlineAt('a * b')).toBe(5) // a star between spaces is a star
  })
})
