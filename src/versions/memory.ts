// In-memory twin of the version stores (memory-only runs and unit tests).
import { MemoryDocRecords } from '../storage/doc-records/memory.js'
import { VersionRecords, versionRevision } from './store.js'

export class MemoryVersionStore extends VersionRecords {
  constructor() {
    super(new MemoryDocRecords(versionRevision))
  }
}
