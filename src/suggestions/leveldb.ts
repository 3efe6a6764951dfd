// Suggestions in LevelDB, sublevel `suggestions-v1`, every key under its document's prefix:
//   {docId}!r!{id}   the record, JSON
//   {docId}!u!{id}   the Yjs update
// '!' sorts below every character a docId may hold, so one range is one document's suggestions.
// LevelDB admits one process, so the compare-and-set of one record is serialised here.
import { KeyQueue } from '../infra/key-queue.js'
import type { RootDb } from '../infra/data-dir.js'
import { newestFirst, type SuggestionRecord } from './record.js'
import type { SuggestionStore } from './store.js'

const SUBLEVEL = 'suggestions-v1'

const docPrefix = (docId: string) => `${docId}!`
const recordKey = (docId: string, id: string) => `${docId}!r!${id}`
const updateKey = (docId: string, id: string) => `${docId}!u!${id}`
const end = (prefix: string) => prefix + '~'

const encode = (r: SuggestionRecord) => new TextEncoder().encode(JSON.stringify(r))
const decode = (v: Uint8Array) => JSON.parse(new TextDecoder().decode(v)) as SuggestionRecord

export class LevelSuggestionStore implements SuggestionStore {
  private readonly db
  private readonly writes = new KeyQueue()

  constructor(
    root: RootDb,
    private readonly durable: { sync: boolean } = { sync: false },
  ) {
    this.db = root.sublevel<string, Uint8Array>(SUBLEVEL, { keyEncoding: 'utf8', valueEncoding: 'view' })
  }

  async create(docId: string, record: SuggestionRecord, update: Uint8Array): Promise<void> {
    await this.db.batch().put(updateKey(docId, record.id), update).put(recordKey(docId, record.id), encode(record)).write(this.durable)
  }

  async list(docId: string): Promise<SuggestionRecord[]> {
    const prefix = `${docPrefix(docId)}r!`
    const out: SuggestionRecord[] = []
    for await (const value of this.db.values({ gte: prefix, lt: end(prefix) })) out.push(decode(value))
    return out.sort(newestFirst)
  }

  async get(docId: string, id: string): Promise<SuggestionRecord | null> {
    const v = await this.db.get(recordKey(docId, id))
    return v === undefined ? null : decode(v)
  }

  async update(docId: string, id: string): Promise<Uint8Array | null> {
    const v = await this.db.get(updateKey(docId, id))
    return v === undefined ? null : new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
  }

  replace(docId: string, next: SuggestionRecord): Promise<boolean> {
    return this.writes.run(recordKey(docId, next.id), async () => {
      const current = await this.get(docId, next.id)
      if (!current || current.rev !== next.rev - 1) return false
      await this.db.put(recordKey(docId, next.id), encode(next), this.durable as object)
      return true
    })
  }

  async erase(docId: string): Promise<void> {
    const prefix = docPrefix(docId)
    await this.db.clear({ gte: prefix, lt: end(prefix) })
  }
}
