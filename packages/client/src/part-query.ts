// The query of a part read (collab REST `content`, `?view=outline|section|range|find`) from typed
// options. Names and values are the route's own, one to one (docs/content.md, "Reading a part"),
// as MCP's read_document takes them; the server (src/content/parts-params.ts) checks them.

/** What every part read takes. */
interface PartAt {
  /** read the document as it was at this base (an earlier answer's); default: now */
  base?: string
  /** the root type; default: the editor's */
  root?: string
  /** skip this many lines (section, range), entries (outline) or matches (find) */
  offset?: number
  /** at most this many lines, entries or matches (find: default 20, at most 200) */
  limit?: number
}

/** A heading's section: its text or block id (to the next heading of its level or higher). */
type ByHeading = { heading: string }
/** Blocks by id: a list (`['b-1-2', 'b-1-9']` or `'b-1-2,b-1-9'`, up to 100) or a range `'FIRST..LAST'`. */
type ByBlocks = { blocks: string | readonly string[] }
/** Lines of the Markdown view, 1-based and inclusive: `'FROM-TO'`, `'FROM-'` (to the end) or `'LINE'`. */
type ByLines = { lines: string }

/** Where an outline or a find looks: the whole document, or one heading's section, blocks or lines. */
type Scope = { heading?: string; blocks?: string | readonly string[]; lines?: string }

export type OutlineOptions = PartAt & Scope
export type SectionOptions = PartAt & (ByHeading | ByBlocks)
export type RangeOptions = PartAt & (ByLines | ByBlocks)
export interface FindOptions extends PartAt, Scope {
  /** `query` is an RE2 regular expression */
  regex?: boolean
  ignore_case?: boolean
  /** lines of context around each match (0-10, default 2) */
  context?: number
}

type PartOptions = OutlineOptions | SectionOptions | RangeOptions | (FindOptions & { query: string })

/** The query string's parameters of a part read. */
export function partQuery(
  view: 'outline' | 'section' | 'range' | 'find',
  options: PartOptions,
): Record<string, string | number | boolean> {
  const q: Record<string, string | number | boolean> = { view }
  for (const [k, v] of Object.entries(options) as [
    string,
    string | number | boolean | readonly string[] | undefined,
  ][]) {
    if (v !== undefined) q[k] = typeof v === 'object' ? v.join(',') : v
  }
  return q
}
