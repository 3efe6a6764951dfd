// How much of a Markdown stream may be shown yet: the longest prefix of what arrived whose parse
// is already what the whole will show there, so an editor never sees a `#`, a `*`, half a link or
// a table row as text that a later chunk turns into structure. What is held back is shown as soon
// as the chunk that settles it arrives; the end of the stream shows everything.
//
// Held back: a last line that is only a block marker so far (`#`, `-`, `1.`, `>`, a fence or a
// rule being typed), a table's rows until its delimiter row has come and each row is whole, and
// in the paragraph being written, everything from an inline construct still open (an emphasis or
// strike run, a code span, a link or image, an autolink or tag, an entity, a trailing backslash).

const FENCE = /^ {0,3}(`{3,}|~{3,})/
const PIPE_LINE = /^ {0,3}\|/
const DELIMITER_ROW = /^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/
/** a line that is nothing but the start of a block marker (or blank) */
const MARKER_ONLY = /^\s*(#{1,6}|[-*+](\s+\[[ xX]?\]?)?|\d{1,9}[.)]?|>|[`~]+|[-=_*\s]+)?\s*$/

/** Where an inline construct still open starts in `text` (a paragraph so far), or its length. */
export function openInlineAt(text: string): number {
  const open: { ch: string; at: number; len: number }[] = []
  const bracket: number[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c === '\\') {
      if (i === text.length - 1) return Math.min(i, firstOpen(open, bracket))
      i += 2
      continue
    }
    if (c === '`') {
      let n = 1
      while (text[i + n] === '`') n++
      const close = text.indexOf('`'.repeat(n), i + n)
      // a code span shows once closed; its inside is never read as Markdown
      if (close < 0) return Math.min(i, firstOpen(open, bracket))
      i = close + n
      continue
    }
    if (c === '*' || c === '_' || c === '~') {
      let n = 1
      while (text[i + n] === c) n++
      const after = text[i + n]
      // a run at the end may still grow (`*` into `**`), and what it would open or close with it
      if (after === undefined) return Math.min(i, firstOpen(open, bracket))
      const top = open.findLastIndex((o) => o.ch === c)
      // a closing run shorter than its opener leaves part of it open
      if (top >= 0 && text[i - 1] !== ' ' && n >= open[top]!.len) open.splice(top)
      else if (top >= 0 && text[i - 1] !== ' ') open.push({ ch: c, at: i, len: n })
      else if (!/\s/.test(after)) open.push({ ch: c, at: i, len: n })
      i += n
      continue
    }
    if (c === '[' || (c === '!' && text[i + 1] === '[')) {
      bracket.push(i)
      i += c === '!' ? 2 : 1
      continue
    }
    if (c === '!' && i === text.length - 1) return Math.min(i, firstOpen(open, bracket))
    if (c === ']' && bracket.length) {
      const from = bracket.pop()!
      // `[text]` at the end may yet become a link
      if (i === text.length - 1) return Math.min(from, firstOpen(open, bracket))
      if (text[i + 1] === '(') {
        const close = text.indexOf(')', i + 2)
        if (close < 0) return Math.min(from, firstOpen(open, bracket))
        i = close + 1
      } else i++
      // a link's text closes the emphasis opened inside it
      const inside = open.findIndex((o) => o.at > from)
      if (inside >= 0) open.splice(inside)
      continue
    }
    if (c === '<' && /[A-Za-z/!?]/.test(text[i + 1] ?? 'a')) {
      const close = text.indexOf('>', i + 1)
      if (close < 0) return Math.min(i, firstOpen(open, bracket))
      i = close + 1
      continue
    }
    if (c === '&') {
      const m = /^&[#A-Za-z0-9]*$/.exec(text.slice(i))
      if (m) return Math.min(i, firstOpen(open, bracket))
    }
    i++
  }
  return firstOpen(open, bracket, text.length)
}

function firstOpen(open: { at: number }[], bracket: number[], none = Infinity): number {
  let at = none
  for (const o of open) at = Math.min(at, o.at)
  for (const b of bracket) at = Math.min(at, b)
  return at
}

/** The prefix of `md` (a stream so far) an editor may show now; all of it once `final`. */
export function renderable(md: string, final: boolean): string {
  if (final) return md
  const lines = md.split('\n')
  const partial = lines.pop()! // the line still being written ('' after a newline)
  let offset = 0
  let fence: string | null = null
  /** where the block being written starts (after the last blank line outside a fence) */
  let paragraph = 0
  /** the run of table lines at the end, and whether it has its delimiter row */
  let tableFrom = -1
  let tableRows = 0
  let tableOk = false
  for (const line of lines) {
    const start = offset
    offset += line.length + 1
    const f = FENCE.exec(line)
    if (fence !== null) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null
      paragraph = offset
      continue
    }
    if (f) {
      fence = f[1]!
      paragraph = offset
      tableFrom = -1
      continue
    }
    if (line.trim() === '') {
      paragraph = offset
      tableFrom = -1
      continue
    }
    if (PIPE_LINE.test(line)) {
      if (tableFrom < 0) {
        tableFrom = start
        tableRows = 0
        tableOk = false
      }
      tableRows++
      if (tableRows === 2 && DELIMITER_ROW.test(line)) tableOk = true
      paragraph = offset
      continue
    }
    tableFrom = -1
  }
  // a table without its delimiter row yet is text so far: held back whole
  const settled = tableFrom >= 0 && !tableOk ? tableFrom : offset
  if (settled < offset) return md.slice(0, settled)
  if (fence !== null) return /^ {0,3}[`~]*$/.test(partial) ? md.slice(0, offset) : md
  if (PIPE_LINE.test(partial) || MARKER_ONLY.test(partial)) return md.slice(0, offset)
  const text = md.slice(paragraph)
  const cut = paragraph + Math.min(text.length, openInlineAt(text))
  // what is left of the line being written must not be a bare marker either (`- ` of `- [link`)
  return md.slice(0, cut >= offset && MARKER_ONLY.test(md.slice(offset, cut)) ? offset : cut)
}
