// The database and login role a managed asset gets on Tandem's own PostgreSQL. Both are named after
// Tandem's schema and the asset id, so deployments sharing one server never meet; an id too long for
// PostgreSQL's 63-byte names is hashed rather than truncated (truncation could make two ids meet).
import { createHash } from 'node:crypto'

const MAX_NAME = 63

export function managedName(schema: string, assetId: string): string {
  const plain = `${schema}_db_${assetId}`
  if (Buffer.byteLength(plain) <= MAX_NAME && /^[A-Za-z0-9._~-]+$/.test(assetId)) return plain
  return `tdb_${createHash('sha256').update(`${schema}\0${assetId}`).digest('hex').slice(0, 40)}`
}

/** A quoted SQL identifier (names here are checked, but quoting keeps case and hyphens). */
export const ident = (name: string): string => '"' + name.replace(/"/g, '""') + '"'
