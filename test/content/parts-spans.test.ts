// The Markdown view a part read cuts from is the whole read, and its blocks' lines account for
// every line of it, on every CommonMark 0.31.2 and GFM extension example written into a document:
// the whole text is the blocks' lines, in order, with only blank lines (and the printer's `<!---->`
// between two lists) between them. In process, through the content conversion functions.
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { computeEdit, readContent } from '../../src/content/formats.js'
import { buildParts } from '../../src/content/parts-model.js'
import { COMMONMARK, GFM_EXTENSIONS } from './spec/examples.js'

describe('part views of the spec examples', () => {
  it('are the whole Markdown read, every line in a block or between blocks', () => {
    const problems: string[] = []
    for (const ex of [...COMMONMARK, ...GFM_EXTENSIONS]) {
      const edit = computeEdit(Y.encodeStateAsUpdate(new Y.Doc()), {
        format: 'markdown',
        content: ex.markdown,
        root: null,
      })
      if (!edit.update) continue
      const whole = readContent(edit.update, 'markdown', null).content as string
      const view = buildParts(edit.update, null)
      if (view.markdown !== whole) problems.push(`${ex.name}: the view differs from the whole read`)
      const lines = whole.split('\n')
      let next = 1
      for (const b of view.blocks) {
        if (b.line < next || b.end < b.line)
          problems.push(`${ex.name}: block at ${b.line}-${b.end} after line ${next - 1}`)
        // a block's Markdown neither starts nor ends with a blank line
        if (!lines[b.line - 1] || !lines[b.end - 1])
          problems.push(`${ex.name}: block at ${b.line}-${b.end} starts or ends blank`)
        for (let l = next; l < b.line; l++)
          if (lines[l - 1] !== '' && lines[l - 1] !== '<!---->')
            problems.push(`${ex.name}: line ${l} (${JSON.stringify(lines[l - 1])}) is in no block`)
        next = b.end + 1
      }
      for (let l = next; l <= lines.length; l++)
        if (lines[l - 1] !== '') problems.push(`${ex.name}: line ${l} after the last block`)
    }
    expect(problems).toEqual([])
  })
})
