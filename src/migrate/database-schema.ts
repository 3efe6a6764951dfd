// What a database asset holds, read from its catalog with search_path '' (so every name in the
// definitions PostgreSQL prints is qualified), as the statements that rebuild it elsewhere, in
// pg_dump's order: schemas, enum types, sequences and tables, then (after the rows) constraints,
// indexes, sequence ownership, views. Objects this copy does not rebuild (functions, triggers,
// domains, extensions, partitioned or foreign tables ...) are refused by name before anything runs.
import type { SqlSession } from './sql-session.js'

const USER_NS = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`
const q = (name: string) => '"' + name.replace(/"/g, '""') + '"'

interface TableShape {
  name: string
  /** columns that take inserted values (not generated) */
  insertable: string[]
  /** an identity column is GENERATED ALWAYS: inserts need OVERRIDING SYSTEM VALUE */
  identityAlways: boolean
}

export interface DatabaseSchema {
  /** run before the rows are copied */
  before: string[]
  tables: TableShape[]
  /** run after the rows are copied */
  after: string[]
  /** qualified names of every sequence, for setval and verification */
  sequences: string[]
}

export async function unsupportedObjects(s: SqlSession): Promise<string[]> {
  const rows = await s.rows<{ what: string }>(`
    SELECT 'function ' || n.nspname || '.' || p.proname AS what FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${USER_NS}
    UNION ALL SELECT 'trigger ' || t.tgname FROM pg_trigger t WHERE NOT t.tgisinternal
    UNION ALL SELECT 'extension ' || e.extname FROM pg_extension e WHERE e.extname <> 'plpgsql'
    UNION ALL SELECT 'type ' || n.nspname || '.' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
      LEFT JOIN pg_class c ON c.oid = t.typrelid
      WHERE ${USER_NS} AND t.typtype IN ('b', 'c', 'd', 'r', 'm') AND t.typelem = 0 AND (c.oid IS NULL OR c.relkind = 'c')
    UNION ALL SELECT 'table ' || n.nspname || '.' || c.relname || ' (' || CASE c.relkind WHEN 'p' THEN 'partitioned' ELSE 'foreign' END || ')'
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_NS} AND c.relkind IN ('p', 'f')
    UNION ALL SELECT 'policy ' || pol.polname FROM pg_policy pol
    UNION ALL SELECT 'rule ' || r.rulename FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${USER_NS} AND r.rulename <> '_RETURN'
    ORDER BY 1`)
  return rows.map((r) => r.what)
}

export async function readSchema(s: SqlSession): Promise<DatabaseSchema> {
  const before: string[] = []
  const after: string[] = []
  const schemas = await s.rows<{ name: string }>(
    `SELECT n.nspname AS name FROM pg_namespace n WHERE ${USER_NS} AND n.nspname <> 'public' ORDER BY 1`,
  )
  for (const r of schemas) before.push(`CREATE SCHEMA IF NOT EXISTS ${q(r.name)}`)

  const enums = await s.rows<{ name: string; labels: string[] }>(`
    SELECT format('%I.%I', n.nspname, t.typname) AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
      FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace JOIN pg_enum e ON e.enumtypid = t.oid
     WHERE ${USER_NS} GROUP BY 1 ORDER BY 1`)
  for (const e of enums)
    before.push(`CREATE TYPE ${e.name} AS ENUM (${e.labels.map((l) => `'${l.replace(/'/g, "''")}'`).join(', ')})`)

  // Sequences of their own (serial columns' included); identity columns come with theirs.
  const seqs = await s.rows<{ name: string; ddl: string; owner: string | null }>(`
    SELECT format('%I.%I', n.nspname, c.relname) AS name,
           format('CREATE SEQUENCE %I.%I AS %s INCREMENT %s MINVALUE %s MAXVALUE %s START %s CACHE %s %s', n.nspname, c.relname,
             format_type(s.seqtypid, NULL), s.seqincrement, s.seqmin, s.seqmax, s.seqstart, s.seqcache, CASE WHEN s.seqcycle THEN 'CYCLE' ELSE 'NO CYCLE' END) AS ddl,
           (SELECT format('%I.%I.%I', tn.nspname, t.relname, a.attname) FROM pg_depend d
              JOIN pg_class t ON t.oid = d.refobjid JOIN pg_namespace tn ON tn.oid = t.relnamespace
              JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
             WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'a' AND d.refobjsubid > 0) AS owner
      FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE ${USER_NS} AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'i')
     ORDER BY 1`)
  for (const sq of seqs) {
    before.push(sq.ddl)
    if (sq.owner) after.push(`ALTER SEQUENCE ${sq.name} OWNED BY ${sq.owner}`)
  }

  const tables = await s.rows<{
    oid: number
    name: string
    columns: {
      name: string
      type: string
      notnull: boolean
      def: string | null
      identity: string
      generated: string
      collation: string | null
    }[]
  }>(`
    SELECT c.oid::int AS oid, format('%I.%I', n.nspname, c.relname) AS name,
           (SELECT json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod), 'notnull', a.attnotnull,
                   'def', pg_get_expr(ad.adbin, ad.adrelid), 'identity', a.attidentity, 'generated', a.attgenerated,
                   'collation', CASE WHEN a.attcollation <> t.typcollation THEN (SELECT format('%I.%I', cn.nspname, co.collname) FROM pg_collation co JOIN pg_namespace cn ON cn.oid = co.collnamespace WHERE co.oid = a.attcollation) END)
                   ORDER BY a.attnum)
              FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
             WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE ${USER_NS} AND c.relkind = 'r' ORDER BY c.oid`)
  const shapes: TableShape[] = []
  for (const t of tables) {
    const cols = (t.columns ?? []).map((c) => {
      let col = `${q(c.name)} ${c.type}`
      if (c.collation) col += ` COLLATE ${c.collation}`
      if (c.generated === 's') col += ` GENERATED ALWAYS AS (${c.def}) STORED`
      else if (c.identity) col += ` GENERATED ${c.identity === 'a' ? 'ALWAYS' : 'BY DEFAULT'} AS IDENTITY`
      else if (c.def !== null) col += ` DEFAULT ${c.def}`
      if (c.notnull) col += ' NOT NULL'
      return col
    })
    before.push(`CREATE TABLE ${t.name} (${cols.join(', ')})`)
    shapes.push({
      name: t.name,
      insertable: (t.columns ?? []).filter((c) => c.generated !== 's').map((c) => c.name),
      identityAlways: (t.columns ?? []).some((c) => c.identity === 'a'),
    })
  }

  // Constraints after the rows (foreign keys last), then the indexes no constraint made.
  const constraints = await s.rows<{ ddl: string }>(`
    SELECT format('ALTER TABLE ONLY %I.%I ADD CONSTRAINT %I %s', n.nspname, c.relname, con.conname, pg_get_constraintdef(con.oid)) AS ddl
      FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE ${USER_NS} AND c.relkind = 'r' AND con.contype IN ('p', 'u', 'c', 'x', 'f')
     ORDER BY con.contype = 'f', c.oid, con.oid`)
  after.push(...constraints.map((r) => r.ddl))
  const indexes = await s.rows<{ ddl: string; matview: boolean }>(`
    SELECT pg_get_indexdef(i.indexrelid) AS ddl, c.relkind = 'm' AS matview
      FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE ${USER_NS} AND c.relkind IN ('r', 'm') AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = i.indexrelid AND con.conrelid = i.indrelid)
     ORDER BY i.indexrelid`)
  // Views in creation order (a view comes after those it reads); a materialized view's indexes after it.
  const views = await s.rows<{ ddl: string }>(`
    SELECT format('CREATE %s %I.%I AS %s', CASE c.relkind WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'VIEW' END, n.nspname, c.relname,
             rtrim(pg_get_viewdef(c.oid), ';')) AS ddl
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_NS} AND c.relkind IN ('v', 'm') ORDER BY c.oid`)
  after.push(
    ...indexes.filter((i) => !i.matview).map((i) => i.ddl),
    ...views.map((v) => v.ddl),
    ...indexes.filter((i) => i.matview).map((i) => i.ddl),
  )
  // Every sequence, identity ones included: their positions are copied and verified.
  const sequences = await s.rows<{ name: string }>(`
    SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE ${USER_NS} AND c.relkind = 'S' ORDER BY 1`)
  return { before, tables: shapes, after, sequences: sequences.map((r) => r.name) }
}
