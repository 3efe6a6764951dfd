// How well a Markdown round trip (Markdown -> a document -> Markdown) keeps what Markdown says,
// judged on the spec examples by markdown-it with the project's own extensions: the visible text
// and the link and image URLs, a second round trip, character references, and the rendered HTML.
import MarkdownIt from 'markdown-it'
import type Token from 'markdown-it/lib/token.mjs'

export interface Example {
  name: string
  markdown: string
}

export type RoundTrip = (markdown: string) => string

const md = new MarkdownIt('commonmark').enable(['table', 'strikethrough'])

/** What a reader sees and follows: text (raw HTML as its characters), and the link and image URLs. */
function seen(markdown: string): { text: string; urls: string[]; html: boolean } {
  const text: string[] = []
  const urls: string[] = []
  let html = false
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === 'html_block' || t.type === 'html_inline') html = true
      if (['text', 'text_special', 'code_inline', 'code_block', 'fence', 'html_block', 'html_inline'].includes(t.type))
        text.push(t.content)
      else if (t.type === 'softbreak' || t.type === 'hardbreak') text.push(' ')
      else if (t.type === 'link_open') urls.push(t.attrGet('href') ?? '')
      if (t.type === 'image') {
        // An image shows its alt text, plain: what its description holds is neither text nor link.
        urls.push(t.attrGet('src') ?? '')
        text.push(alt(t.children ?? []))
      } else if (t.children) walk(t.children)
      if (t.block && t.nesting !== 1) text.push(' ')
    }
  }
  walk(md.parse(markdown, {}))
  return { text: text.join('').replace(/\s+/g, ' ').trim(), urls, html }
}

/** The characters a text references (`&#10;` and `&#xA;` are the same one). */
/** An image's description as plain text, as CommonMark defines it (escapes and code included). */
function alt(tokens: readonly Token[]): string {
  return tokens
    .map((t) =>
      t.type === 'image' ? alt(t.children ?? []) : ['softbreak', 'hardbreak'].includes(t.type) ? ' ' : t.content,
    )
    .join('')
}

const REF = /&(?:#[xX][0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g
const refs = (s: string) => new Map((s.match(REF) ?? []).map((r) => [md.utils.unescapeAll(r), r]))
const normalHtml = (s: string) => s.replace(/\s+/g, ' ').replace(/> </g, '><').trim()

export interface Verdict {
  name: string
  output: string
  /** the input holds raw HTML, which no ProseMirror schema holds as such */
  rawHtml: boolean
  textKept: boolean
  urlsKept: boolean
  stable: boolean
  newRefs: string[]
  sameHtml: boolean
}

export function judge(example: Example, roundTrip: RoundTrip): Verdict {
  const once = roundTrip(example.markdown)
  const twice = roundTrip(once)
  const a = seen(example.markdown)
  const b = seen(once)
  const had = refs(example.markdown)
  return {
    name: example.name,
    output: once,
    rawHtml: a.html,
    textKept: a.text === b.text,
    urlsKept: a.urls.join('\n') === b.urls.join('\n'),
    stable: once === twice,
    newRefs: [...refs(once)].filter(([c]) => !had.has(c)).map(([, r]) => r),
    sameHtml: normalHtml(md.render(example.markdown)) === normalHtml(md.render(once)),
  }
}

export interface Figures {
  examples: number
  /** shares of all examples, 0 to 1 */
  textKept: number
  urlsKept: number
  stable: number
  /** examples whose output carries a character reference its input lacked */
  newRefs: number
  /** share of the examples without raw HTML that render to the same HTML */
  sameHtml: number
}

export function figures(verdicts: readonly Verdict[]): Figures {
  const share = (vs: readonly Verdict[], f: (v: Verdict) => boolean) =>
    vs.length ? vs.filter(f).length / vs.length : 1
  const markdownOnly = verdicts.filter((v) => !v.rawHtml)
  return {
    examples: verdicts.length,
    textKept: share(verdicts, (v) => v.textKept),
    urlsKept: share(verdicts, (v) => v.urlsKept),
    stable: share(verdicts, (v) => v.stable),
    newRefs: verdicts.filter((v) => v.newRefs.length > 0).length,
    sameHtml: share(markdownOnly, (v) => v.sameHtml),
  }
}
