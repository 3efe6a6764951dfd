// What the content route answers, as types the route checks its answers against and the client
// package (@tandem/client) publishes: one definition for both.
type ContentFormat = 'markdown' | 'prosemirror' | 'text'

/**
 * A ProseMirror JSON document, one level deep (pm-json.ts has the full node type; the client's
 * declarations are written out in full, so they take no recursive type).
 */
export interface PmDocument {
  type: 'doc'
  content?: { type: string; attrs?: Record<string, unknown>; content?: unknown[]; marks?: unknown[]; text?: string }[]
}

/** GET /content: the document in a format, and the base it was read at. */
export interface ContentRead {
  format: ContentFormat
  root: string
  /** Markdown or text as a string; ProseMirror JSON as a `{type: "doc"}` node */
  content: string | PmDocument
  base: string
}

/** PATCH /content: a content write. */
export interface ContentWrite {
  format: ContentFormat
  content: string | PmDocument
  base?: string
  root?: string
  attributions?: Record<string, string>
  /** suggest: hold the change for review instead of applying it */
  mode?: 'apply' | 'suggest'
  /** an agent's write applied under required_with_override */
  override?: boolean
}

/** A region a targeted edit changed, as the document reads after it: lines `line`..`end` of its Markdown view. */
export interface ContentChange {
  line: number
  end: number
  content: string
  /** the ids of the blocks the edited run holds now */
  blocks: string[]
}

/** PATCH /content's answer (200 applied or not; 202 held as a suggestion, with `suggestion` and `hunks`). */
export interface ContentWritten {
  applied: boolean
  inserted: number
  deleted: number
  base?: string
  root?: string
  suggestion?: unknown
  hunks?: string[]
  /** targeted edits: each changed region with a few lines of context around it */
  changes?: ContentChange[]
}
