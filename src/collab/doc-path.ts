// A document's address as clients give it: `{org}/{doc_id}` in a WebSocket or REST path
// (URI-encoded) and in a Hocuspocus document name (as it is). One check for every entry point.
import { DOC_NAME } from '../auth/capability.js'
import { AppError } from '../infra/errors.js'

/** The org and document of a path's two segments, decoded; not_found when either is no document name. */
export function decodeDocPath(rawOrg: string, rawDoc: string): { org: string; doc: string } {
  let org: string, doc: string
  try {
    org = decodeURIComponent(rawOrg)
    doc = decodeURIComponent(rawDoc)
  } catch {
    throw new AppError('not_found', 'bad document path')
  }
  if (!DOC_NAME.test(org) || !DOC_NAME.test(doc)) throw new AppError('not_found', 'bad document path')
  return { org, doc }
}

/** A session id in a Hocuspocus routing key: the provider's is base-36 random; UUIDs fit too. */
const SESSION_ID = /^[A-Za-z0-9_.:-]{1,64}$/

/**
 * A Hocuspocus provider's document name: `{org}/{doc_id}`, or with its `sessionAwareness` option
 * the routing key `{org}/{doc_id}\0{session}` (one socket, several providers of one document).
 * Null when it is neither.
 */
export function splitHocusName(name: string): { org: string; doc: string; session: string | null } | null {
  const nul = name.indexOf('\0')
  const path = splitDocName(nul < 0 ? name : name.slice(0, nul))
  if (!path) return null
  if (nul < 0) return { ...path, session: null }
  const session = name.slice(nul + 1)
  return SESSION_ID.test(session) ? { ...path, session } : null
}

/** `{org}/{doc_id}` of a name, or null. */
function splitDocName(name: string): { org: string; doc: string } | null {
  const slash = name.indexOf('/')
  if (slash < 0 || name.indexOf('/', slash + 1) >= 0) return null
  const org = name.slice(0, slash)
  const doc = name.slice(slash + 1)
  return DOC_NAME.test(org) && DOC_NAME.test(doc) ? { org, doc } : null
}
