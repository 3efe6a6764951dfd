// Suggestions in memory (--doc-storage memory, tests): the store's contract with nothing kept.
import { MemoryDocRecords } from '../storage/doc-records/memory.js'
import { SuggestionRecords, suggestionRevision } from './store.js'

export class MemorySuggestionStore extends SuggestionRecords {
  constructor() {
    super(new MemoryDocRecords(suggestionRevision))
  }
}
