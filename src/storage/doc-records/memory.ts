// The in-memory twin of the per-document record stores (--doc-storage memory, unit tests). Every
// record and body goes in and out as a copy, as it would through a real store.
import { newestFirst, type DocRecord, type DocRecords } from './store.js'

export class MemoryDocRecords<R extends DocRecord> implements DocRecords<R> {
  private readonly docs = new Map<string, Map<string, { record: R; body: Uint8Array }>>()

  /** `revision`: the number replace compares */
  constructor(private readonly revision: (r: R) => number) {}

  async create(docId: string, record: R, body: Uint8Array): Promise<void> {
    let doc = this.docs.get(docId)
    if (!doc) this.docs.set(docId, (doc = new Map()))
    doc.set(record.id, { record: structuredClone(record), body: body.slice() })
  }

  async list(docId: string): Promise<R[]> {
    return [...(this.docs.get(docId)?.values() ?? [])].map((e) => structuredClone(e.record)).sort(newestFirst)
  }

  async get(docId: string, id: string): Promise<R | null> {
    const e = this.docs.get(docId)?.get(id)
    return e ? structuredClone(e.record) : null
  }

  async body(docId: string, id: string): Promise<Uint8Array | null> {
    return this.docs.get(docId)?.get(id)?.body.slice() ?? null
  }

  async replace(docId: string, next: R, expected: number, body?: Uint8Array): Promise<boolean> {
    const e = this.docs.get(docId)?.get(next.id)
    if (!e || this.revision(e.record) !== expected) return false
    e.record = structuredClone(next)
    if (body) e.body = body.slice()
    return true
  }

  async remove(docId: string, id: string): Promise<boolean> {
    return this.docs.get(docId)?.delete(id) ?? false
  }

  async erase(docId: string): Promise<void> {
    this.docs.delete(docId)
  }
}
