// What the content route takes and answers (whole reads and writes, part reads, targeted edits), as
// types the route checks its answers against and the client package (@tandem/client) publishes:
// one definition for both.
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

/**
 * One targeted edit of the Markdown view (edit-ops.ts checks them): replace text that occurs once
 * (every occurrence with `replace_all`), insert Markdown before or after a block or at either end,
 * delete a block (a heading with its whole section with `section`). A block is named by its id
 * (`b-...`, from an outline) or a heading's text.
 */
export type ContentEdit =
  | { old_text: string; new_text: string; replace_all?: boolean }
  | { insert: string; before: string }
  | { insert: string; after: string }
  | { insert: string; at: 'start' | 'end' }
  | { delete: string; section?: boolean }

/** PATCH /content with targeted edits: they apply together or not at all. */
export interface ContentEdits extends Pick<ContentWrite, 'base' | 'root' | 'attributions' | 'mode' | 'override'> {
  edits: ContentEdit[]
}

/** A targeted edit's 409: the edits were not applied; read that part again (at `base`) and edit from there. */
export interface EditRefusal {
  error: string
  /**
   * no_match: old_text is not in the view; several_matches: it is more than once; changed_since_base: what the edit
   * touches changed since
   */
  code: 'no_match' | 'several_matches' | 'changed_since_base'
  /** the index of the edit refused */
  edit?: number
  /** no_match: the line where old_text comes closest (its first or last `matched_chars` characters are there) */
  closest?: { line: number; text: string; matched_chars: number }
  /** several_matches: how many, and the lines of the first 20 */
  count?: number
  lines?: number[]
  /** changed_since_base: the block that changed, and what it holds now */
  block?: string
  now?: string
  /** the base the edits were located in */
  base: string
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

/** A piece of the Markdown view: lines `line` to `end` (1-based, inclusive), exactly as a whole read prints them. */
export interface ContentPiece {
  line: number
  end: number
  content: string
}

/** A top-level block of the lines a page holds. */
export interface BlockRef {
  id: string
  kind: string
  line: number
  end: number
}

/** An outline entry for one block. */
export interface OutlineBlock {
  id: string
  /** the element's node type: heading, paragraph, bulletList, codeBlock, ... */
  kind: string
  /** a heading's level (1-6) */
  level?: number
  /** a heading's text, or another block's first words */
  text: string
  /** first and last line of the Markdown view it prints on (1-based, inclusive) */
  line: number
  end: number
  /** the size of its Markdown */
  chars: number
}

/** An outline entry for the blocks between two headings listed (an outline of `detail: "headings"`). */
export interface OutlineRange {
  kind: 'blocks'
  /** the first block's id and the last's: outline or read them with blocks=ID..LAST */
  id: string
  last: string
  count: number
  line: number
  end: number
  chars: number
}

export type OutlineEntry = OutlineBlock | OutlineRange

export interface FindMatch {
  /** the block the line belongs to (null: a line between blocks) */
  id: string | null
  line: number
  /** 1-based, in UTF-16 code units like the line's text */
  column: number
  match: string
  /** the lines around the match, from `context_line` (each cut at 400 characters, marked …) */
  context: string
  context_line: number
}

/** What every part read answers. */
interface PartHead {
  /** the base it was read at: read more of the same state with it, or edit from it */
  base: string
  root: string
  /** the line count of the whole Markdown view */
  lines: number
  /** more follows: GET ?cursor=`next` (alone) reads on at the same base */
  truncated: boolean
  next?: string
}

/** GET /content?view=outline. */
export interface OutlineRead extends PartHead {
  view: 'outline'
  /** the size of the whole Markdown view */
  chars: number
  block_count: number
  /** blocks: every block is listed; headings: the headings to `heading_levels`, the blocks between as ranges */
  detail: 'blocks' | 'headings'
  heading_levels?: number
  note?: string
  entries: OutlineEntry[]
}

/** GET /content?view=section|range: one run of lines, or `parts` when the blocks named lie apart. */
export type SectionRead = PartHead & { view: 'section' | 'range'; blocks: BlockRef[] } & (
    (ContentPiece & { parts?: never }) | { parts: ContentPiece[]; line?: never; end?: never; content?: never }
  )

/** GET /content?view=find. */
export interface FindRead extends PartHead {
  view: 'find'
  query: string
  matches: FindMatch[]
}

/** Any part read: what a `cursor` continues. */
export type PartRead = OutlineRead | SectionRead | FindRead

/** A Yjs relative position as `Y.relativePositionToJSON` writes it (y-prosemirror's cursor reads it back). */
export interface RelativePositionJson {
  type?: { client: number; clock: number } | null
  tname?: string | null
  item?: { client: number; clock: number } | null
  assoc?: number
}

/** An agent's caret in awareness, in the shape y-prosemirror's cursor plugin reads (`state.cursor`). */
export interface AgentCaret {
  anchor: RelativePositionJson
  head: RelativePositionJson
}

/** The awareness state of an agent in a document's room. */
export interface AgentState {
  user: { name: string; color: string; kind: 'agent'; model?: string }
  cursor: AgentCaret | null
}

/** `POST /presence/v1/{org}/{doc_id}`: show the agent where it is looking, without editing. */
export interface PresenceShow {
  /** a block id, or a heading's text */
  at?: string
  /** text to select: in the block `at` names, or the first block whose Markdown holds it */
  quote?: string
  /** the root type; default: the editor's */
  root?: string
}

/** The presence route's answer: the caret as the room now shows it. */
export interface PresenceShown {
  block: string
  cursor: AgentCaret
}

/**
 * Where a stream writes: after or before a block (id) or heading (text), at the start or end, or
 * in place of the whole blocks `replace` matches (exactly once, as `old_text` of a targeted edit).
 */
export type StreamWhere = { after: string } | { before: string } | { at: 'start' | 'end' } | { replace: string }

/** A stream's answer (`/stream/v1/{org}/{doc_id}[/{stream}[/end]]`). */
export interface StreamState {
  stream: string
  /** the base the document is at after this call */
  base: string
  /** characters of the text sent so far the document shows, and that wait for what settles them */
  shown: number
  held: number
  changes?: ContentChange[]
  /**
   * Under an approval mode that holds the agent's writes: the suggestion the stream grows (made by
   * its first step that shows text, revised by every later one); the document itself is unchanged
   */
  suggestion?: string
}
