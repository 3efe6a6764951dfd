// The `base` of a content read or write: which state of the document an agent's content was made
// from. A read's base is the log's seq of the state read. A write's answer names the state the
// agent now believes in: the base it wrote from plus its own update. When nobody else wrote in
// between, that is simply the seq of its update; otherwise it is the older seq with the agent's
// own updates on top (`12~15~19`), a state the log never held as such but can rebuild exactly,
// so the next write from it keeps everything others wrote meanwhile. Opaque to clients.
import { AppError } from '../infra/errors.js'

export interface Base {
  /** the log entry the state starts from */
  seq: number
  /** the agent's own later updates on top, in log order */
  own: number[]
}

/** A base may carry at most this many own updates; a write from a full one is refused (409: read again). */
export const MAX_OWN = 64

export function formatBase(b: Base): string {
  return [b.seq, ...b.own].join('~')
}

export function parseBase(token: unknown): Base {
  if (typeof token !== 'string' || !/^\d{1,15}(~\d{1,15}){0,64}$/.test(token))
    throw new AppError('bad_request', 'base is not a base this server gave out')
  const [seq, ...own] = token.split('~').map(Number) as [number, ...number[]]
  let last = seq
  for (const s of own) {
    if (s <= last) throw new AppError('bad_request', 'base is not a base this server gave out')
    last = s
  }
  return { seq, own }
}

/** The base after the agent's update logged at `seq` (null: it changed nothing, the base stands). */
export function advance(b: Base, seq: number | null): Base {
  if (seq === null) return b
  const own = [...b.own, seq]
  let at = b.seq
  // Updates that directly follow the base are part of a plain log state.
  while (own.length && own[0] === at + 1) at = own.shift()!
  return { seq: at, own }
}
