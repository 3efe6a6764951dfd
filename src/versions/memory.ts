// In-memory twin of the version stores (memory-only runs and unit tests).
import { newestFirst, type VersionRecord } from './record.js'
import { renamedAt, type RenameResult, type VersionStore } from './store.js'

export class MemoryVersionStore implements VersionStore {
  private docs = new Map<string, Map<string, { record: VersionRecord; state: Uint8Array }>>()

  private doc(docId: string) {
    let d = this.docs.get(docId)
    if (!d) this.docs.set(docId, (d = new Map()))
    return d
  }

  async create(docId: string, record: VersionRecord, state: Uint8Array): Promise<void> {
    this.doc(docId).set(record.id, { record: { ...record }, state: state.slice() })
  }

  async list(docId: string): Promise<VersionRecord[]> {
    return [...(this.docs.get(docId)?.values() ?? [])].map((v) => ({ ...v.record })).sort(newestFirst)
  }

  async get(docId: string, id: string): Promise<VersionRecord | null> {
    const v = this.docs.get(docId)?.get(id)
    return v ? { ...v.record } : null
  }

  async state(docId: string, id: string): Promise<Uint8Array | null> {
    return this.docs.get(docId)?.get(id)?.state.slice() ?? null
  }

  async rename(docId: string, id: string, name: string, expected: number, now: number): Promise<RenameResult> {
    const v = this.docs.get(docId)?.get(id)
    if (!v) return null
    if (v.record.updated_at_ms !== expected) return { ok: false, current: { ...v.record } }
    v.record = { ...v.record, name, updated_at_ms: renamedAt(v.record.updated_at_ms, now) }
    return { ok: true, record: { ...v.record } }
  }

  async remove(docId: string, id: string): Promise<boolean> {
    return this.docs.get(docId)?.delete(id) ?? false
  }

  async erase(docId: string): Promise<void> {
    this.docs.delete(docId)
  }
}
