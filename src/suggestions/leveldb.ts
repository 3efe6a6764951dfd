// Suggestions in LevelDB (src/storage/doc-records/leveldb.ts), sublevel `suggestions-v1`:
//   {docId}!r!{id}   the record, JSON
//   {docId}!u!{id}   the Yjs update
// Data dirs hold these keys: the layout never changes without a migration.
import type { RootDb } from '../infra/data-dir.js'
import { LevelDocRecords, type LevelLayout } from '../storage/doc-records/leveldb.js'
import type { SuggestionRecord } from './record.js'
import { SuggestionRecords, suggestionRevision } from './store.js'

const LAYOUT: LevelLayout<SuggestionRecord> = { sublevel: 'suggestions-v1', bodyTag: 'u', revision: suggestionRevision }

export class LevelSuggestionStore extends SuggestionRecords {
  constructor(root: RootDb, durable: { sync: boolean } = { sync: false }) {
    super(new LevelDocRecords(root, LAYOUT, durable))
  }
}
