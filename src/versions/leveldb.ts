// Named versions in LevelDB, sublevel `versions-v1`, every key under its document's prefix:
//   {docId}!r!{id}   the record, JSON
//   {docId}!s!{id}   the document's encoded state when the version was taken
// '!' sorts below every character a docId may hold, so one range is one document's versions
// (erase is one range delete). LevelDB admits one process, so renames of one version are
// serialised in this process.
import { KeyQueue } from '../infra/key-queue.js'
import type { RootDb } from '../infra/data-dir.js'
import { newestFirst, type VersionRecord } from './record.js'
import { renamedAt, type RenameResult, type VersionStore } from './store.js'

const VERSIONS_SUBLEVEL = 'versions-v1'

const docPrefix = (docId: string) => `${docId}!`
const recordKey = (docId: string, id: string) => `${docId}!r!${id}`
const stateKey = (docId: string, id: string) => `${docId}!s!${id}`
/** '~' sorts above every character after a document's prefix */
const end = (prefix: string) => prefix + '~'

const encodeRecord = (r: VersionRecord) => new TextEncoder().encode(JSON.stringify(r))
const decodeRecord = (v: Uint8Array) => JSON.parse(new TextDecoder().decode(v)) as VersionRecord

export class LevelVersionStore implements VersionStore {
  private readonly db
  private readonly renames = new KeyQueue()

  constructor(
    root: RootDb,
    private readonly durable: { sync: boolean } = { sync: false },
  ) {
    this.db = root.sublevel<string, Uint8Array>(VERSIONS_SUBLEVEL, { keyEncoding: 'utf8', valueEncoding: 'view' })
  }

  async create(docId: string, record: VersionRecord, state: Uint8Array): Promise<void> {
    await this.db
      .batch()
      .put(stateKey(docId, record.id), state)
      .put(recordKey(docId, record.id), encodeRecord(record))
      .write(this.durable)
  }

  async list(docId: string): Promise<VersionRecord[]> {
    const prefix = `${docPrefix(docId)}r!`
    const out: VersionRecord[] = []
    for await (const value of this.db.values({ gte: prefix, lt: end(prefix) })) out.push(decodeRecord(value))
    return out.sort(newestFirst)
  }

  async get(docId: string, id: string): Promise<VersionRecord | null> {
    const v = await this.db.get(recordKey(docId, id))
    return v === undefined ? null : decodeRecord(v)
  }

  async state(docId: string, id: string): Promise<Uint8Array | null> {
    const v = await this.db.get(stateKey(docId, id))
    return v === undefined ? null : new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
  }

  rename(docId: string, id: string, name: string, expected: number, now: number): Promise<RenameResult> {
    return this.renames.run(recordKey(docId, id), async () => {
      const current = await this.get(docId, id)
      if (!current) return null
      if (current.updated_at_ms !== expected) return { ok: false, current }
      const record = { ...current, name, updated_at_ms: renamedAt(current.updated_at_ms, now) }
      await this.db.put(recordKey(docId, id), encodeRecord(record), this.durable as object)
      return { ok: true, record }
    })
  }

  remove(docId: string, id: string): Promise<boolean> {
    // in the rename queue: a rename finishing after the delete must not bring the record back
    return this.renames.run(recordKey(docId, id), async () => {
      if ((await this.db.get(recordKey(docId, id))) === undefined) return false
      await this.db.batch().del(recordKey(docId, id)).del(stateKey(docId, id)).write(this.durable)
      return true
    })
  }

  async erase(docId: string): Promise<void> {
    const prefix = docPrefix(docId)
    await this.db.clear({ gte: prefix, lt: end(prefix) })
  }
}
