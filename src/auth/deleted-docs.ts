// Deleted documents: the deny-set every listener checks. A capability token names its document,
// not whether the document still exists, so the collab listener learns deletions the way it learns
// revocations: deletion records in the control plane (`deleted/{asset_id}`), read into memory, so
// the synchronous upgrade and every collab REST call check a set, never a store.
import { AppError } from '../infra/errors.js'
import { PolledRecords, type RecordSource } from './polled-records.js'

/** One deleted asset. Soft: restorable, nothing of its content touched. Hard: a tombstone. */
export interface DocDeletion {
  assetId: string
  /** the asset's room namespace and document (workspace id, asset id) */
  org: string
  doc: string
  type: string
  /** database assets: the provider whose data a hard delete drops (never a connection URL) */
  provider?: string
  deletedAtMs: number
  /** who deleted it (user id, or `admin` from the command line) */
  by: string
  hard: boolean
  /** hard only: when the writer finished erasing every store (absent while it runs or if it died) */
  erasedAtMs?: number
}

export const DELETED_PREFIX = 'deleted'
export const DELETED_VERSION_KEY = 'deletedmeta/version'
export const deletionKey = (assetId: string) => `${DELETED_PREFIX}/${assetId}`

export const DOC_DELETED_MESSAGE = 'document deleted'

export class DeletedDocs {
  private docs = new Set<string>()
  readonly records: PolledRecords<DocDeletion>

  constructor(source: RecordSource) {
    this.records = new PolledRecords<DocDeletion>(source, DELETED_PREFIX, DELETED_VERSION_KEY, (rows) => {
      this.docs = new Set(rows.map((r) => `${r.org}/${r.doc}`))
    })
  }

  has(org: string, doc: string): boolean {
    return this.docs.has(`${org}/${doc}`)
  }

  /** Throws 404 `doc_deleted` for a deleted document (every branch of it). */
  check(org: string, doc: string): void {
    if (this.has(org, doc)) throw new AppError('doc_deleted', DOC_DELETED_MESSAGE)
  }
}
