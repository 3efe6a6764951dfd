// mdast-util-to-markdown encodes the letter beside an emphasis marker as a character reference
// (`fo&#x6F;***bar***&#x62;az`) wherever its rules cannot prove the marker opens or closes, even
// where CommonMark reads the plain letter the same (`foo***bar***baz`). Those references are
// taken out when markdown-it reads the result as the same document: one more parse, and only
// for output that has such a reference at all.
import { stableJson } from './stable-json.js'
import { markdownToPm } from './markdown-in.js'

/** A hex reference right before or after an emphasis or strikethrough marker, not escaped. */
const BESIDE_MARKER = /(?<!\\)&#x([0-9A-F]+);(?=[*_~])|(?<=[*_~])&#x([0-9A-F]+);/g

const decode = (s: string) =>
  s.replace(BESIDE_MARKER, (_, a?: string, b?: string) => String.fromCodePoint(parseInt(a ?? b!, 16)))

/**
 * Without those references; failing that, also with `__` as `**` (the printer picks `__` for a
 * strong inside `*` emphasis, which cannot open inside a word). Kept as printed unless markdown-it
 * reads the candidate as the same document.
 */
export function withoutMarkerRefs(markdown: string): string {
  if (markdown.search(BESIDE_MARKER) < 0) return markdown
  const want = stableJson(markdownToPm(markdown, 'tiptap'))
  for (const candidate of [decode(markdown), decode(markdown.replace(/(?<!\\)__/g, '**'))]) {
    if (stableJson(markdownToPm(candidate, 'tiptap')) === want) return candidate
  }
  return markdown
}
