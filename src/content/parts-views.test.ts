import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { computeEdit } from './formats.js'
import { withLines } from './parts-lines.js'
import { partsOf } from './parts-model.js'
import { fitDetail, outlineEntries, outlineSize } from './parts-views.js'

function viewOf(markdown: string) {
  const doc = new Y.Doc()
  Y.applyUpdate(
    doc,
    computeEdit(Y.encodeStateAsUpdate(doc), { format: 'markdown', content: markdown, root: null }).update!,
  )
  return withLines(partsOf('default', doc.getXmlFragment('default')))
}

/** A document of headings at levels 1-3 and runs of paragraphs between them, from `seed`. */
function sample(seed: number): string {
  let x = seed
  const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648
  const out: string[] = []
  for (let i = 0; i < 120; i++) {
    if (rand() < 0.25) out.push(`${'#'.repeat(1 + Math.floor(rand() * 3))} Heading "${i}" \\ é`)
    else out.push(`Paragraph ${i} with **bold** and "quotes".`)
  }
  return out.join('\n\n')
}

describe("an outline's size, counted without printing every entry at every level", () => {
  it('equals the printed size of the entries at every detail, and picks the detail the printed sizes pick', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const m = viewOf(sample(seed))
      const printed = (d: number) =>
        outlineEntries(m, m.blocks, d).reduce((n, e) => n + JSON.stringify(e).length + 1, 2)
      const sizes = outlineEntries(m, m.blocks, 0).map((e) => JSON.stringify(e).length + 1)
      for (const d of [1, 2, 3]) expect(outlineSize(m, m.blocks, sizes, d)).toBe(printed(d))
      for (const budget of [300, 1_000, 2_000, 4_000, 100_000]) {
        const levels = [3, 2, 1].filter((d) => m.blocks.some((b) => b.kind === 'heading' && b.level === d))
        const naive = printed(0) <= budget ? 0 : (levels.find((d) => printed(d) <= budget) ?? levels[levels.length - 1])
        expect(fitDetail(m, m.blocks, budget)).toBe(naive)
      }
    }
  })
})
