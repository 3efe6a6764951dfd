// Named versions in LevelDB (src/storage/doc-records/leveldb.ts), sublevel `versions-v1`:
//   {docId}!r!{id}   the record, JSON
//   {docId}!s!{id}   the document's encoded state when the version was taken
// Data dirs hold these keys: the layout never changes without a migration.
import type { RootDb } from '../infra/data-dir.js'
import { LevelDocRecords, type LevelLayout } from '../storage/doc-records/leveldb.js'
import type { VersionRecord } from './record.js'
import { VersionRecords, versionRevision } from './store.js'

const LAYOUT: LevelLayout<VersionRecord> = { sublevel: 'versions-v1', bodyTag: 's', revision: versionRevision }

export class LevelVersionStore extends VersionRecords {
  constructor(root: RootDb, durable: { sync: boolean } = { sync: false }) {
    super(new LevelDocRecords(root, LAYOUT, durable))
  }
}
