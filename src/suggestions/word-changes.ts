// A hunk's change word by word, so a reader (an agent, a review UI) sees which words changed inside
// a block without diffing the before and after itself: both diffed by words and the white space
// between them (fast-diff over one symbol per distinct word, so no word is ever split).
import type { WordChange } from '@tandem/api/suggestions'
import diff from 'fast-diff'

/** the symbols stay below the UTF-16 surrogates, which fast-diff treats as halves of one character */
const FIRST_SYMBOL = 0x100
const LAST_SYMBOL = 0xd7ff

const OPS = { [diff.EQUAL]: 'equal', [diff.DELETE]: 'delete', [diff.INSERT]: 'insert' } as const

/** `before` to `after` as runs of unchanged, deleted and inserted words (with their white space). */
export function wordChanges(before: string, after: string): WordChange[] {
  const words: string[] = []
  const symbols = new Map<string, string>()
  const encode = (text: string): string | null => {
    let out = ''
    for (const w of text.match(/\s+|\S+/g) ?? []) {
      let s = symbols.get(w)
      if (s === undefined) {
        if (FIRST_SYMBOL + words.length > LAST_SYMBOL) return null
        s = String.fromCharCode(FIRST_SYMBOL + words.length)
        symbols.set(w, s)
        words.push(w)
      }
      out += s
    }
    return out
  }
  const a = encode(before)
  const b = a === null ? null : encode(after)
  // more distinct words than symbols (a hunk of tens of thousands of words): shown whole
  if (a === null || b === null) return whole(before, after)
  return diff(a, b).map(([op, s]) => ({
    op: OPS[op],
    text: [...s].map((c) => words[c.charCodeAt(0) - FIRST_SYMBOL]).join(''),
  }))
}

function whole(before: string, after: string): WordChange[] {
  const out: WordChange[] = []
  if (before) out.push({ op: 'delete', text: before })
  if (after) out.push({ op: 'insert', text: after })
  return out
}
