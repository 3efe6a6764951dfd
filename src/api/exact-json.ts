// JSON numbers a double cannot hold (integers past 2^53, decimals of more than 15-17 significant
// digits), kept as their digits for the routes that store them: JSON.parse would round
// 9007199254740993 to ...992 before anyone saw it. lossless-json parses them (Node 20's JSON.parse
// has no access to a number's source text), and only when the text has 16 digits in a row (a point may split them), so
// every other body pays nothing.
import { isLosslessNumber, isSafeNumber, LosslessNumber, parse, stringify } from 'lossless-json'

/** a number needs at least 16 significant digits (a point may split them) to be past what a double holds exactly */
const LONG_DIGITS = /\d(?:\.?\d){15}/

/**
 * An exact number. Anything that writes it with plain JSON.stringify (an error echoing its input)
 * writes its digits as a string; exactJsonText writes them as a number.
 */
class ExactNumber extends LosslessNumber {
  toJSON(): string {
    return this.value
  }
}

/** Whether `text` may hold a number JSON.parse would round (a cheap pre-check). */
export const mayHoldInexactNumber = (text: string): boolean => LONG_DIGITS.test(text)

/**
 * `text` (already known to be valid JSON) parsed as JSON.parse would, except that a number a
 * double cannot hold exactly is an exact number (its digits), and a repeated key keeps its last
 * value, as in JSON.parse.
 */
export function parseExactNumbers(text: string): unknown {
  return parse(text, null, {
    parseNumber: (digits) => (isSafeNumber(digits) ? Number(digits) : new ExactNumber(digits)),
    onDuplicateKey: ({ newValue }) => newValue,
  })
}

/** A number kept as its digits by parseExactNumbers. */
export const isExactNumber = (value: unknown): value is LosslessNumber => isLosslessNumber(value)

/** JSON text of `value`, exact numbers written as their digits (JSON.stringify when it holds none). */
export function exactJsonText(value: unknown): string {
  return holdsExactNumber(value, 0) ? stringify(value)! : JSON.stringify(value)
}

function holdsExactNumber(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return false
  if (isLosslessNumber(value)) return true
  // bodies are depth-bounded before parsing (--max-json-depth); this bound is only a backstop
  if (depth > 1000) return false
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (holdsExactNumber(v, depth + 1)) return true
  return false
}
