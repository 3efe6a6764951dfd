// The scripted agent of the targeted-concurrency test, without I/O: a document of one-line
// paragraphs whose lowercase words only the agent writes (each word occurs once, so any one is a
// valid old_text), the model of what those words must read after every answer, and the edits the
// agent plans from what it read at a base, each with what the server must answer: land, be
// refused (its own text or block changed since the base), or either (the person typed inside the
// named span meanwhile, and whether the server had that keystroke yet decides). The person types
// capital letters only, so the lowercase letters of any read are the agent's alone.

/** Word slots of a paragraph, after its label and before the filler word `ipsum`. */
const SLOTS = 8
/** In every paragraph: an old_text that is never unique. */
export const FILLER = 'ipsum'

const DIGITS = 'jkqvwxyz' // base-8 digits of codes; no stem, label or filler has these letters
const STEMS = [
  'amber',
  'cedar',
  'ochre',
  'slate',
  'umber',
  'coral',
  'linen',
  'peach',
  'sable',
  'taupe',
  'lemon',
  'melon',
]

function code(n: number, width: number): string {
  let s = ''
  for (let i = 0; i < width; i++, n >>= 3) s = DIGITS[n & 7]! + s
  return s
}

/** Fixed-width codes after a stem of fixed width: no word is a substring of another, or of a label. */
const wordOf = (para: number, slot: number, ver: number, stem: number) =>
  `${STEMS[stem % STEMS.length]}${code(para, 5)}${code(slot, 1)}${code(ver, 2)}`
export const labelOf = (para: number) => `para${code(para, 5)}`
/** The agent's part of a line: the person's capitals taken out. */
export const lower = (line: string) => line.replace(/[A-Z]/g, '')

export interface Para {
  label: string
  words: string[]
  id: string
  /** written by the agent's inserts (only these may it delete) */
  agents: boolean
}

type Block = { heading: string } | Para
const keyOf = (b: Block) => ('heading' in b ? b.heading : b.label)
const lineOf = (p: Para) => `${p.label} ${p.words.join(' ')} ${FILLER}`
/** A read line's key: its paragraph label, or the heading line itself. */
export const lineKey = (line: string) => (line.startsWith('#') ? line : line.split(' ')[0]!)

/** What the document must read with the person's letters taken out: every answer checks against it. */
export class Model {
  readonly blocks: Block[] = []
  private versions = new Map<string, number>()
  private inserted = 0

  constructor(paragraphs: number, headingEvery: number) {
    for (let n = 0; n < paragraphs; n++) {
      if (n % headingEvery === 0) this.blocks.push({ heading: `## Part ${n / headingEvery}` })
      this.blocks.push({
        label: labelOf(n),
        words: Array.from({ length: SLOTS }, (_, s) => wordOf(n, s, 0, n + s)),
        id: '',
        agents: false,
      })
    }
  }

  get markdown(): string {
    return this.blocks.map((b) => ('heading' in b ? b.heading : lineOf(b))).join('\n\n') + '\n'
  }

  para(label: string): Para | undefined {
    return this.blocks.find((b): b is Para => !('heading' in b) && b.label === label)
  }

  indexOf(key: string): number {
    return this.blocks.findIndex((b) => keyOf(b) === key)
  }

  /** The lines of an answer's region must read as the model's blocks in a row. */
  mismatch(content: string): string | null {
    const lines = content.split('\n').filter((l) => l !== '')
    const at = this.indexOf(lineKey(lines[0] ?? ''))
    for (let k = 0; k < lines.length; k++) {
      const want = this.blocks[at + k]
      const got = lines[k]!.startsWith('#') ? lines[k]! : lower(lines[k]!)
      if (at < 0 || !want || got !== ('heading' in want ? want.heading : lineOf(want)))
        return `line ${k} of the region reads ${JSON.stringify(lines[k])}, the model ${want ? JSON.stringify('heading' in want ? want.heading : lineOf(want)) : 'nothing'}`
    }
    return null
  }

  /** A new word for a slot of a paragraph: a stem other than the old word's, a version never used. */
  nextWord(label: string, slot: number, old: string): string {
    const key = `${label}/${slot}`
    const ver = (this.versions.get(key) ?? 0) + 1
    if (ver >= 64) throw new Error(`slot ${key}: more versions than its code holds`)
    this.versions.set(key, ver)
    const stem = (STEMS.findIndex((s) => old.startsWith(s)) + 1 + (ver % (STEMS.length - 1))) % STEMS.length
    return wordOf(parseInt([...label.slice(4)].map((c) => DIGITS.indexOf(c)).join(''), 8), slot, ver, stem)
  }

  newPara(): Para {
    const n = 30_000 + this.inserted++
    return {
      label: labelOf(n),
      words: Array.from({ length: SLOTS }, (_, s) => wordOf(n, s, 0, n + s)),
      id: '',
      agents: true,
    }
  }

  /** A word the document never held: old_text that matches nothing. */
  absentWord(): string {
    return wordOf(29_999, 0, 63, 0)
  }
}

/** What the agent read at a base: the lines as read (the person's letters in them), by label. */
export interface Known {
  base: string
  /** the person's keystrokes typed when the agent got this base */
  keys: number
  lines: Map<string, string>
}

export type Expect = 'land' | 'refuse' | 'either'

export interface Planned {
  edit: Record<string, unknown>
  expect: Expect
  /**
   * The person's letters in the paragraph at the base when their cursor is inside the named span:
   * a keystroke typed after that, up to the answer, may or may not have reached the server first.
   */
  racesTyping?: number
  /** what the edit does to the model once it lands */
  apply(model: Model): void
  /** the paragraph it names (or inserts after) */
  label: string
  /** the paragraph it inserts, to learn its id from the answer */
  inserts?: Para
}

/** Where the person's next keystroke goes in `line`: after the last capital (every person paragraph has one). */
const cursorIn = (line: string) => {
  const m = /[A-Z](?=[^A-Z]*$)/.exec(line)
  return m ? m.index + 1 : -1
}

/**
 * str_replace of one to three neighbouring words of `label` as read at `known`, each word the
 * agent changes given a new version; the person's letters inside the span are copied unchanged.
 */
export function planReplace(model: Model, known: Known, label: string, rand: () => number): Planned | null {
  const line = known.lines.get(label)!
  const tokens = line.split(' ')
  const len = 1 + Math.floor(rand() * 3)
  const first = 1 + Math.floor(rand() * (SLOTS - len + 1))
  const from = tokens.slice(0, first).join(' ').length + 1
  const span = tokens.slice(first, first + len)
  const to = from + span.join(' ').length
  const now = model.para(label)
  const changes: { slot: number; word: string }[] = []
  const replaced = span.map((t, k) => {
    const word = lower(t)
    if (k > 0 && rand() < 0.4) return t
    if (!t.includes(word)) return t // the person's letter landed inside the word: leave it
    const next = model.nextWord(label, first - 1 + k, word)
    changes.push({ slot: first - 1 + k, word: next })
    return t.replace(word, next)
  })
  if (!changes.length) return null
  const cursor = cursorIn(line)
  const stillThere = now !== undefined && span.every((t, k) => now.words[first - 1 + k] === lower(t))
  return {
    edit: { old_text: span.join(' '), new_text: replaced.join(' ') },
    expect: stillThere ? 'land' : 'refuse',
    ...(from < cursor && cursor < to ? { racesTyping: line.replace(/[^A-Z]/g, '').length } : {}),
    label,
    apply(m) {
      for (const c of changes) m.para(label)!.words[c.slot] = c.word
    },
  }
}

/** A new paragraph inserted after `label` (as the agent knows its id); refused once that block is gone. */
export function planInsert(model: Model, label: string, id: string): Planned {
  const p = model.newPara()
  return {
    edit: { insert: lineOf(p), after: id },
    expect: model.para(label) ? 'land' : 'refuse',
    label,
    inserts: p,
    apply(m) {
      m.blocks.splice(m.indexOf(label) + 1, 0, p)
    },
  }
}

/** Deletes one of the agent's paragraphs; refused when it is gone or its words changed since `known`. */
export function planDelete(model: Model, known: Known, label: string, id: string): Planned {
  const now = model.para(label)
  return {
    edit: { delete: id },
    expect: now && lineOf(now) === lower(known.lines.get(label)!) ? 'land' : 'refuse',
    label,
    apply(m) {
      m.blocks.splice(m.indexOf(label), 1)
    },
  }
}

/** Lines by key of a piece of the Markdown view. */
export function linesOf(content: string, into = new Map<string, string>()): Map<string, string> {
  for (const l of content.split('\n')) if (l.startsWith('para')) into.set(lineKey(l), l)
  return into
}
