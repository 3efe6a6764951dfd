// Marks (AppendWrite.marks: the webhooks outbox's document.updated windows) ride on the statement
// that appends a cycle's entries: a data-modifying CTE in front of it, so they commit exactly when
// the entries do, and a retried cycle finds them there already (ON CONFLICT DO NOTHING).
import type { StoreMark } from '../doc-store.js'

/** `sql` (an append statement starting with WITH) also inserting `marks`; unchanged when there are none. */
export function withMarks(sql: string, params: unknown[], marks: readonly StoreMark[]): [string, unknown[]] {
  if (marks.length === 0) return [sql, params]
  if (!/^\s*WITH\s/i.test(sql)) throw new Error('marks ride only on an append statement that starts with WITH')
  const n = params.length
  const cte = `WITH doc_marks_in AS (INSERT INTO doc_marks (key, value) SELECT * FROM unnest($${n + 1}::text[], $${n + 2}::text[]) ON CONFLICT (key) DO NOTHING),`
  return [sql.replace(/^\s*WITH\s/i, `${cte} `), [...params, marks.map((m) => m.key), marks.map((m) => m.value)]]
}
