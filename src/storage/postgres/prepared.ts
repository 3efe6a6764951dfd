// Names for the statements every write cycle runs. A named statement is parsed and planned once
// per connection and then only bound and executed, where an unnamed one is parsed and planned
// again each cycle (planning alone was a quarter of the append's time in PostgreSQL, see
// docs/cluster.md).
// The name is the text's hash, so a text that differs (marks ride along) is another statement.
// A pooler in front of PostgreSQL must keep them per server connection (PgBouncer: 1.21 or later
// with max_prepared_statements, in transaction mode).
import { createHash } from 'node:crypto'

const names = new Map<string, string>()

export function statementName(text: string): string {
  let name = names.get(text)
  if (!name) names.set(text, (name = `tandem_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`))
  return name
}
