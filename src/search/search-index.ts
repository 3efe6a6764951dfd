// The index's operations over either engine: write an asset's pieces, drop them, list what is
// indexed, and the permission-filtered query. Knows nothing of documents or the control plane.
import type { SearchDb } from './db.js'
import type { SearchQuery } from './query-text.js'
import { DROP_SQL, INDEXED_SQL, PUT_SQL, QUERY_SQL } from './sql.js'

type PieceKind = 'title' | 'block' | 'table'

export interface Piece {
  kind: PieceKind
  /** a block id (`b-…`, the part reads' and targeted edits' own), a table name, or null (a title, a text root) */
  block: string | null
  body: string
}

export interface SearchHit {
  assetId: string
  kind: PieceKind
  block: string | null
  rank: number
  snippet: string
}

/**
 * A piece's text is cut past this many characters: a tsvector holds at most 1 MB, and one block
 * of a document this long is a pasted dump whose first 100k characters say what it is.
 */
const MAX_PIECE_CHARS = 100_000

/** Writes between two maintenance passes (VACUUM on PGlite): each put replaces the asset's changed rows. */
const MAINTAIN_EVERY = 2_000

export class SearchIndex {
  private writes = 0
  private maintaining: Promise<void> | null = null

  constructor(
    readonly db: SearchDb,
    private readonly onError: (err: unknown) => void,
  ) {}

  private wrote(): void {
    if (++this.writes < MAINTAIN_EVERY || this.maintaining) return
    this.writes = 0
    this.maintaining = this.db
      .maintain()
      .catch(this.onError)
      .finally(() => (this.maintaining = null))
  }

  /**
   * Makes the asset's rows these pieces, in one statement (a reader sees the old rows or the new); unchanged pieces
   * stay as they are.
   */
  async put(asset: { id: string; workspaceId: string }, pieces: readonly Piece[]): Promise<void> {
    const rows = pieces
      .filter((p) => p.body.trim() !== '')
      .map((p, pos) => ({
        pos,
        kind: p.kind,
        block: p.block,
        body: p.body.length > MAX_PIECE_CHARS ? p.body.slice(0, MAX_PIECE_CHARS) : p.body,
      }))
    await this.db.query(PUT_SQL, [asset.id, asset.workspaceId, JSON.stringify(rows)])
    this.wrote()
  }

  async drop(assetId: string): Promise<void> {
    await this.db.query(DROP_SQL, [assetId])
    this.wrote()
  }

  async indexed(): Promise<string[]> {
    return (await this.db.query(INDEXED_SQL, [])).map((r) => String(r[0]))
  }

  /** The best piece per asset among `viewable`, ranked; [] when the query has no searchable word. */
  async search(o: {
    workspaceId: string
    viewable: readonly string[]
    query: SearchQuery
    limit: number
    offset: number
  }): Promise<SearchHit[]> {
    if (o.viewable.length === 0) return []
    const rows = await this.db.query(QUERY_SQL, [
      o.query.web,
      o.query.prefix,
      o.workspaceId,
      JSON.stringify(o.viewable),
      String(o.limit),
      String(o.offset),
    ])
    return rows.map(([assetId, kind, block, rank, snippet]) => ({
      assetId: String(assetId),
      kind: kind as PieceKind,
      block: block === null ? null : String(block),
      rank: Math.round(Number(rank) * 1e6) / 1e6,
      snippet: String(snippet),
    }))
  }
}
