// Markdown written into a document (its ProseMirror/Yjs structure) and read back: what the
// CommonMark and GFM spec examples found lost or changed, one case per defect. The whole spec
// is judged in test/content/markdown-spec.test.ts.
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { computeEdit, readContent } from './formats.js'

/** Markdown -> the Yjs document -> Markdown, as a write into an empty document and a read of it. */
function roundTrip(markdown: string): string {
  const doc = new Y.Doc()
  const edit = computeEdit(Y.encodeStateAsUpdate(doc), { format: 'markdown', content: markdown, root: null })
  if (edit.update) Y.applyUpdate(doc, edit.update)
  return readContent(Y.encodeStateAsUpdate(doc), 'markdown', null).content as string
}

/** `before` written into an empty document, then `after` written over it, read back. */
function rewrite(before: string, after: string): string {
  const doc = new Y.Doc()
  for (const content of [before, after]) {
    const edit = computeEdit(Y.encodeStateAsUpdate(doc), { format: 'markdown', content, root: null })
    if (edit.update) Y.applyUpdate(doc, edit.update)
  }
  return readContent(Y.encodeStateAsUpdate(doc), 'markdown', null).content as string
}

describe('Markdown round trip', () => {
  it('reads CR and CRLF as line endings and NUL as U+FFFD, as CommonMark says, and LF text as it is', () => {
    const lf = '# Title\n\nOne\ntwo\n\n- a\n- b\n'
    expect(roundTrip(lf.replace(/\n/g, '\r\n'))).toBe(roundTrip(lf))
    expect(roundTrip(lf.replace(/\n/g, '\r'))).toBe(roundTrip(lf))
    expect(roundTrip('a\0b\n')).toBe('a\uFFFDb\n')
  })

  it('a write over existing text marks the spaces inside a run too, so the run is not split', () => {
    expect(rewrite('a with nested marks\n', 'a *with **nested** marks*\n')).toBe('a *with **nested** marks*\n')
    expect(rewrite('Intro *with* *__nested__ marks*\n', 'Intro *with **nested** marks*\n')).toBe(
      'Intro *with **nested** marks*\n',
    )
    // a space Markdown prints outside a run keeps the mark it has: a write-back changes nothing
    expect(rewrite('**a** *b*\n', '**a** *b*\n')).toBe('**a** *b*\n')
  })

  it('a fenced code block keeps its info string unescaped, so it does not grow on each write-back', () => {
    expect(roundTrip('``` foo\\+bar\nfoo\n```\n')).toBe('```foo+bar\nfoo\n```\n')
    expect(roundTrip('``` f&ouml;&ouml;\nfoo\n```\n')).toBe('```föö\nfoo\n```\n')
    expect(roundTrip(roundTrip('```foo\\+bar\nx\n```\n'))).toBe('```foo+bar\nx\n```\n')
  })

  it('an ordered list starting at 0 reads back starting at 0', () => {
    expect(roundTrip('0. zero\n1. one\n')).toBe('0. zero\n1. one\n')
  })

  it('marks that cover a longer run wrap it whole: no split at an inner mark or a link, no character references', () => {
    expect(roundTrip('*foo **bar** baz*\n')).toBe('*foo **bar** baz*\n')
    expect(roundTrip('*foo [bar](/url)*\n')).toBe('*foo [bar](/url)*\n')
    expect(roundTrip('**foo [*bar*](/url) baz**\n')).toBe('**foo [*bar*](/url) baz**\n')
    expect(roundTrip('foo***bar***baz\n')).toBe('foo***bar***baz\n')
    expect(roundTrip('*foo**bar***\n')).toBe('*foo**bar***\n')
  })

  it('raw HTML is kept as its text, as paragraphs would read it, without character references', () => {
    expect(roundTrip('<div id="foo"\n  class="bar">\n</div>\n')).toBe('\\<div id="foo"\nclass="bar">\n\\</div>\n')
    expect(roundTrip('<textarea>\n\n*foo*\n\n</textarea>\n')).toBe('\\<textarea>\n\n\\*foo\\*\n\n\\</textarea>\n')
    expect(roundTrip('<a href="foo  \nbar">\n')).toBe('\\<a href="foo\nbar">\n')
  })

  it('a loose list reads back loose, a tight one tight, and a rewrite of an unchanged loose list changes nothing', () => {
    expect(roundTrip('- foo\n\n- bar\n\n\n- baz\n')).toBe('- foo\n\n- bar\n\n- baz\n')
    expect(roundTrip('1. a\n\n   b\n2. c\n')).toBe('1. a\n\n   b\n\n2. c\n')
    expect(roundTrip('- a\n  - b\n  - c\n\n- d\n')).toBe('- a\n\n  - b\n  - c\n\n- d\n')
    expect(roundTrip('- a\n- b\n')).toBe('- a\n- b\n')
    const doc = new Y.Doc()
    const write = (content: string) =>
      computeEdit(Y.encodeStateAsUpdate(doc), { format: 'markdown', content, root: null }).update
    Y.applyUpdate(doc, write('- a\n\n- b\n')!)
    expect(write('- a\n\n- b\n')).toBeNull()
    Y.applyUpdate(doc, write('- a\n- b\n')!)
    expect(readContent(Y.encodeStateAsUpdate(doc), 'markdown', null).content).toBe('- a\n- b\n')
  })

  it('a hard break inside emphasis stays inside it', () => {
    expect(roundTrip('*foo  \nbar*\n')).toBe('*foo\\\nbar*\n')
    expect(roundTrip('**a** \\\n*b*\n')).toBe('**a** \\\n*b*\n')
  })

  it("a GFM table keeps its columns' alignment", () => {
    expect(roundTrip('| a | b | c | d |\n| :- | :-: | --: | --- |\n| 1 | 2 | 3 | 4 |\n')).toBe(
      '| a  |  b  |  c | d |\n| :- | :-: | -: | - |\n| 1  |  2  |  3 | 4 |\n',
    )
  })

  it('a link around an image keeps its link, and a link without text keeps its URL', () => {
    expect(roundTrip('[![moon](moon.jpg)](/uri)\n')).toBe('[![moon](moon.jpg)](/uri)\n')
    expect(roundTrip('[![moon](moon.jpg) and more](/uri "t")\n')).toBe('[![moon](moon.jpg) and more](/uri "t")\n')
    expect(roundTrip('[](./target.md)\n')).toBe('[](./target.md)\n')
    expect(roundTrip('a [](<>) b\n')).toBe('a []() b\n')
    // An image's description keeps escaped characters and code, so it does not shrink on each write.
    expect(roundTrip(roundTrip('![[[foo](uri1)](uri2)](uri3)\n'))).toBe('![\\[foo\\](uri2)](uri3)\n')
  })
})
