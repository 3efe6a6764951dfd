// A named version: a name people give the document as it was at one moment, with that moment's
// full encoded state kept beside the record, so history retention (which folds and prunes the
// log) never makes it unreadable.
import type { VersionRecord } from '@tandem/api/versions'

export type { VersionRecord }

export const MAX_NAME_CHARS = 200
/** Each version holds a whole document: a bound on what one rw token can make a document store. */
export const MAX_VERSIONS_PER_DOC = 500

/** Ids are minted here (16 random bytes, base64url); a path segment never holds anything else. */
export const VERSION_ID = /^[A-Za-z0-9_-]{22}$/
