// The search index's SQL, the same text on PostgreSQL and on PGlite (the embedded engine is
// PostgreSQL too): one row per indexed piece of an asset (its title, each top-level block of a
// document, each table of a database) with a tsvector under a GIN index. Every value is a bound
// parameter; the caller's query reaches PostgreSQL only as $1 of websearch_to_tsquery, which
// parses any text without raising, and as prefix words already reduced to letters and digits.
// The table is derived data (rebuilt from the documents by `tandem admin search rebuild`): a change
// of its shape is a new table name and a rebuild, not a migration.

/** The text search configuration: English stemming and stop words ("pricing" finds "price"). */
const CONFIG = `'english'`

/** Weights by kind: a title match ranks above the same words in a table name, then in the text. */
const WEIGHT = `CASE r.kind WHEN 'title' THEN 'A' WHEN 'table' THEN 'B' ELSE 'D' END::"char"`

export const SCHEMA_SQL = `
  CREATE TABLE IF NOT EXISTS search_blocks_v1 (
    asset_id     text COLLATE "C" NOT NULL,
    workspace_id text COLLATE "C" NOT NULL,
    pos          integer NOT NULL,
    kind         text NOT NULL,
    block        text,
    body         text NOT NULL,
    tsv          tsvector NOT NULL
  );
  CREATE INDEX IF NOT EXISTS search_blocks_v1_tsv ON search_blocks_v1 USING gin (tsv);
  CREATE INDEX IF NOT EXISTS search_blocks_v1_asset ON search_blocks_v1 (asset_id);
`

/**
 * $1 asset, $2 workspace, $3 JSON [{pos, kind, block, body}]: the asset's rows made these, in one
 * statement. Only pieces that changed are written: a row whose kind, block and text are still
 * there stays (an edit of one paragraph parses one paragraph again, not the document), the others
 * go. A kept row keeps its old position, which only breaks ties between equal ranks.
 */
export const PUT_SQL = `
  WITH r AS (SELECT * FROM jsonb_to_recordset($3::jsonb) AS r(pos integer, kind text, block text, body text)),
  gone AS (
    DELETE FROM search_blocks_v1 b WHERE b.asset_id = $1
      AND NOT EXISTS (SELECT 1 FROM r WHERE r.kind = b.kind AND r.block IS NOT DISTINCT FROM b.block AND r.body = b.body)
  )
  INSERT INTO search_blocks_v1 (asset_id, workspace_id, pos, kind, block, body, tsv)
  SELECT $1, $2, r.pos, r.kind, r.block, r.body, setweight(to_tsvector(${CONFIG}, r.body), ${WEIGHT})
  FROM r
  WHERE NOT EXISTS (SELECT 1 FROM search_blocks_v1 b WHERE b.asset_id = $1 AND b.kind = r.kind AND b.block IS NOT DISTINCT FROM r.block AND b.body = r.body)
`

export const DROP_SQL = `DELETE FROM search_blocks_v1 WHERE asset_id = $1`

export const INDEXED_SQL = `SELECT DISTINCT asset_id FROM search_blocks_v1`

/**
 * $1 the query (websearch syntax), $2 prefix terms for to_tsquery ('' for none), $3 workspace,
 * $4 JSON array of the asset ids the caller may view, $5 limit, $6 offset. The permission filter
 * is part of the match, so the page is cut from what the caller may open and nothing else. One
 * row per asset: its best-ranked piece; a snippet only for the rows of the page.
 */
export const QUERY_SQL = `
  WITH q AS (
    SELECT websearch_to_tsquery(${CONFIG}, $1) && (CASE WHEN $2 = '' THEN ''::tsquery ELSE to_tsquery(${CONFIG}, $2) END) AS q
  ),
  best AS (
    SELECT DISTINCT ON (b.asset_id) b.asset_id, b.kind, b.block, b.body, ts_rank(b.tsv, q.q) AS rank
    FROM search_blocks_v1 b, q
    WHERE b.workspace_id = $3 AND b.asset_id IN (SELECT jsonb_array_elements_text($4::jsonb)) AND b.tsv @@ q.q
    ORDER BY b.asset_id, rank DESC, b.pos
  ),
  page AS (SELECT * FROM best ORDER BY rank DESC, asset_id LIMIT $5::integer OFFSET $6::integer)
  SELECT p.asset_id, p.kind, p.block, p.rank::float8,
    ts_headline(${CONFIG}, p.body, q.q, 'StartSel=«, StopSel=», MaxWords=35, MinWords=15')
  FROM page p, q
  ORDER BY p.rank DESC, p.asset_id
`
