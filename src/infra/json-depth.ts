// How deep a JSON text nests, found without parsing it. JSON.parse itself copes with any depth, but
// everything after it that walks the value (validation, error bodies, JSON.stringify, the database's
// own JSON input) recurses, so a body nested 10^5 deep must be refused before it becomes a value.

export const tooDeepMessage = (max: number): string => `Nesting deeper than ${max} levels`

/**
 * The byte index of the first `[` or `{` (outside strings) that opens level `max + 1` in UTF-8
 * JSON text, or -1. Every byte it looks for is ASCII, and no byte of a multi-byte UTF-8 sequence
 * is. Linear and iterative; the text need not be valid JSON (a parser still judges it afterwards).
 */
export function tooDeepAt(bytes: Uint8Array, max: number): number {
  let depth = 0
  const n = bytes.length
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!
    if (c === 0x22) {
      // skip a string: up to the next quote that is not escaped
      for (i++; i < n; i++) {
        const d = bytes[i]!
        if (d === 0x5c) i++
        else if (d === 0x22) break
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--
  }
  return -1
}
