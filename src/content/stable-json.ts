// JSON with object keys sorted, so two values that are equal compare equal as strings whatever
// order their keys were written in (attributes read back from Yjs keep their own order).
// Written as loops: block signatures of a 1 MB write go through here (tens of thousands of values).
export function stableJson(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) {
    let out = '['
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + stableJson(value[i])
    return out + ']'
  }
  const keys = Object.keys(value)
  if (keys.length > 1) keys.sort()
  let out = '{'
  for (let i = 0; i < keys.length; i++)
    out += (i ? ',' : '') + JSON.stringify(keys[i]) + ':' + stableJson((value as Record<string, unknown>)[keys[i]!])
  return out + '}'
}
