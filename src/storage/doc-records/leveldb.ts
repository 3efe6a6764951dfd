// Per-document records in LevelDB: one sublevel per kind of record, every key under its
// document's prefix:
//   {docId}!r!{id}      the record, JSON
//   {docId}!{tag}!{id}  its body (the layout names the tag)
// '!' sorts below every character a docId may hold, so one range is one document's records (erase
// is one range delete). LevelDB admits one process, so the replaces and removes of one record are
// serialised in this process.
import type { RootDb } from '../../infra/data-dir.js'
import { KeyQueue } from '../../infra/key-queue.js'
import { newestFirst, type DocRecord, type DocRecords } from './store.js'

/** Where one kind of record lives: fixed once data is written, or it no longer reads back. */
export interface LevelLayout<R> {
  /** e.g. `versions-v1` */
  sublevel: string
  /** the body's key tag, never `r` */
  bodyTag: string
  /** the number replace compares */
  revision: (r: R) => number
}

const RECORD_TAG = 'r'
/** '~' sorts above every character after a document's prefix */
const end = (prefix: string) => prefix + '~'

export class LevelDocRecords<R extends DocRecord> implements DocRecords<R> {
  private readonly db
  private readonly writes = new KeyQueue()

  constructor(
    root: RootDb,
    private readonly layout: LevelLayout<R>,
    private readonly durable: { sync: boolean } = { sync: false },
  ) {
    this.db = root.sublevel<string, Uint8Array>(layout.sublevel, { keyEncoding: 'utf8', valueEncoding: 'view' })
  }

  private recordKey = (docId: string, id: string) => `${docId}!${RECORD_TAG}!${id}`
  private bodyKey = (docId: string, id: string) => `${docId}!${this.layout.bodyTag}!${id}`

  async create(docId: string, record: R, body: Uint8Array): Promise<void> {
    await this.db
      .batch()
      .put(this.bodyKey(docId, record.id), body)
      .put(this.recordKey(docId, record.id), encode(record))
      .write(this.durable)
  }

  async list(docId: string): Promise<R[]> {
    const prefix = `${docId}!${RECORD_TAG}!`
    const out: R[] = []
    for await (const value of this.db.values({ gte: prefix, lt: end(prefix) })) out.push(decode<R>(value))
    return out.sort(newestFirst)
  }

  async get(docId: string, id: string): Promise<R | null> {
    const v = await this.db.get(this.recordKey(docId, id))
    return v === undefined ? null : decode<R>(v)
  }

  async body(docId: string, id: string): Promise<Uint8Array | null> {
    const v = await this.db.get(this.bodyKey(docId, id))
    return v === undefined ? null : new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
  }

  replace(docId: string, next: R, expected: number, body?: Uint8Array): Promise<boolean> {
    return this.writes.run(this.recordKey(docId, next.id), async () => {
      const current = await this.get(docId, next.id)
      if (!current || this.layout.revision(current) !== expected) return false
      const batch = this.db.batch().put(this.recordKey(docId, next.id), encode(next))
      if (body) batch.put(this.bodyKey(docId, next.id), body)
      await batch.write(this.durable)
      return true
    })
  }

  remove(docId: string, id: string): Promise<boolean> {
    // in the replace queue: a replace finishing after the remove must not bring the record back
    return this.writes.run(this.recordKey(docId, id), async () => {
      if ((await this.db.get(this.recordKey(docId, id))) === undefined) return false
      await this.db.batch().del(this.recordKey(docId, id)).del(this.bodyKey(docId, id)).write(this.durable)
      return true
    })
  }

  async erase(docId: string): Promise<void> {
    const prefix = `${docId}!`
    await this.db.clear({ gte: prefix, lt: end(prefix) })
  }
}

const encode = (r: unknown) => new TextEncoder().encode(JSON.stringify(r))
const decode = <R>(v: Uint8Array) => JSON.parse(new TextDecoder().decode(v)) as R
