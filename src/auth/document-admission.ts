// One admission of a verified capability to a document, for every edge that takes a token: the
// WebSocket upgrade, collab REST and the in-band refresh on an open socket. The token opens exactly
// the document (and branch) it names (403 elsewhere); a deleted document is refused (404
// doc_deleted); the deny-list refuses a revoked token or narrows it (edit became view).
import { checkDocument, type Capability } from './capability.js'
import type { DeletedDocs } from './deleted-docs.js'
import type { RevocationList } from './revocation.js'

export interface AdmissionLists {
  deleted: DeletedDocs
  revocations: RevocationList
}

export function admitToDocument(lists: AdmissionLists, cap: Capability, org: string, doc: string): Capability {
  checkDocument(cap, org, doc)
  lists.deleted.check(org, doc)
  return lists.revocations.apply(cap)
}
