// What a search query means: PostgreSQL's websearch syntax (words, "phrases", `or`, `-word`), plus
// prefix words written `pric*`, which websearch_to_tsquery has no syntax for. Those are taken out
// before the rest reaches websearch_to_tsquery and handed to to_tsquery reduced to letters and
// digits (`pric:*`), so neither function can meet a character it would reject.
import { AppError } from '../infra/errors.js'

/** Longer queries are refused (400): no real search is longer, and a bound keeps the parse cheap. */
export const MAX_QUERY_CHARS = 500

export interface SearchQuery {
  /** for websearch_to_tsquery */
  web: string
  /** for to_tsquery: `pric:* & !budg:*`, '' for none */
  prefix: string
}

const PREFIX_WORD = /(^|\s)(-?)([^\s"]+)\*(?=\s|$)/gu

export function parseQuery(q: string): SearchQuery {
  const text = q.trim()
  if (text === '') throw new AppError('bad_request', 'q is empty: give the words to search for')
  if (text.length > MAX_QUERY_CHARS)
    throw new AppError('bad_request', `q is ${text.length} characters long; at most ${MAX_QUERY_CHARS}`)
  const prefix: string[] = []
  // Segments outside double quotes are the even ones: a phrase keeps its words as they are.
  const web = text
    .split('"')
    .map((seg, i) =>
      i % 2 === 1
        ? seg
        : seg.replace(PREFIX_WORD, (_m, lead: string, not: string, word: string) => {
            const bare = word.replace(/[^\p{L}\p{N}]/gu, '')
            if (bare) prefix.push(`${not ? '!' : ''}${bare}:*`)
            return lead
          }),
    )
    .join('"')
    .trim()
  return { web, prefix: prefix.join(' & ') }
}
