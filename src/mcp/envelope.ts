// The id and method of a JSON-RPC message /mcp could not read (too large, too deep, not JSON), found
// in its first and last bytes without parsing it, so a tool call past a limit is still answered
// as that call: a tool error naming the limit, instead of a transport failure the agent cannot
// tell from a network fault. Clients put the envelope's scalar members either first (`{"jsonrpc",
// "id", "method", "params"}`) or around the params (the TypeScript SDK: `{"method", "params",
// "jsonrpc", "id"}`); only top-level members are taken, never a member of the params.

export interface Envelope {
  id?: string | number
  method?: string
}

const SCALAR = String.raw`(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|"(?:[^"\\]|\\.)*"|true|false|null)`
/** One leading member with a scalar value, right after `{` or a previous such member. */
const LEADING = new RegExp(String.raw`\s*"((?:[^"\\]|\\.)*)"\s*:\s*${SCALAR}\s*,`, 'y')
/** The last member of the top-level object, when it is the id. */
const TRAILING_ID = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${SCALAR}\s*\}\s*$`)

const idOf = (token: string): string | number | undefined => {
  const v = JSON.parse(token) as unknown
  return typeof v === 'string' || typeof v === 'number' ? v : undefined
}

/** `head` and `tail`: the message's first and last few KiB (the same text when it is small). */
export function envelopeOf(head: string, tail: string): Envelope {
  const found: Envelope = {}
  const open = /^\s*\{/.exec(head)
  if (!open) return found
  LEADING.lastIndex = open[0].length
  for (let m = LEADING.exec(head); m; m = LEADING.exec(head)) {
    const key = JSON.parse(`"${m[1]!}"`) as string
    if (key === 'id') {
      const id = idOf(m[2]!)
      if (id !== undefined) found.id = id
    } else if (key === 'method' && m[2]!.startsWith('"')) found.method = JSON.parse(m[2]!) as string
  }
  if (found.id === undefined) {
    const last = TRAILING_ID.exec(tail)
    const id = last ? idOf(last[1]!) : undefined
    if (id !== undefined) found.id = id
  }
  return found
}
