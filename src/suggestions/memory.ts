// Suggestions in memory (--doc-storage memory, tests): the store's contract with nothing kept.
import { newestFirst, type SuggestionRecord } from './record.js'
import type { SuggestionStore } from './store.js'

export class MemorySuggestionStore implements SuggestionStore {
  private readonly docs = new Map<string, Map<string, { record: SuggestionRecord; update: Uint8Array }>>()

  private doc(docId: string) {
    let d = this.docs.get(docId)
    if (!d) this.docs.set(docId, (d = new Map()))
    return d
  }

  async create(docId: string, record: SuggestionRecord, update: Uint8Array): Promise<void> {
    this.doc(docId).set(record.id, { record: structuredClone(record), update })
  }

  async list(docId: string): Promise<SuggestionRecord[]> {
    return [...(this.docs.get(docId)?.values() ?? [])].map((e) => structuredClone(e.record)).sort(newestFirst)
  }

  async get(docId: string, id: string): Promise<SuggestionRecord | null> {
    const e = this.docs.get(docId)?.get(id)
    return e ? structuredClone(e.record) : null
  }

  async update(docId: string, id: string): Promise<Uint8Array | null> {
    return this.docs.get(docId)?.get(id)?.update ?? null
  }

  async replace(docId: string, next: SuggestionRecord): Promise<boolean> {
    const e = this.docs.get(docId)?.get(next.id)
    if (!e || e.record.rev !== next.rev - 1) return false
    e.record = structuredClone(next)
    return true
  }

  async erase(docId: string): Promise<void> {
    this.docs.delete(docId)
  }
}
