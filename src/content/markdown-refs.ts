// mdast-util-to-markdown encodes the letter beside an emphasis marker as a character reference
// (`fo&#x6F;***bar***&#x62;az`) wherever its rules cannot prove the marker opens or closes, even
// where CommonMark reads the plain letter the same (`foo***bar***baz`). Those references are
// taken out when markdown-it reads the result as the same document: one more parse, and only
// for output that has such a reference at all.
import { stableJson } from './stable-json.js'
import { markdownToPm } from './markdown-in.js'

/** A hex reference right before or after an emphasis or strikethrough marker, not escaped. */
const BESIDE_MARKER = /(?<!\\)&#x([0-9A-F]+);(?=[*_~])|(?<=[*_~])&#x([0-9A-F]+);/g

export function withoutMarkerRefs(markdown: string): string {
  if (!BESIDE_MARKER.test(markdown)) return markdown
  BESIDE_MARKER.lastIndex = 0
  const plain = markdown.replace(BESIDE_MARKER, (_, a?: string, b?: string) => String.fromCodePoint(parseInt(a ?? b!, 16)))
  return stableJson(markdownToPm(plain, 'tiptap')) === stableJson(markdownToPm(markdown, 'tiptap')) ? plain : markdown
}
