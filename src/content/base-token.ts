// A base as clients hold it: the seq form (base.ts) and a tag that ties it to one document in one
// storage epoch, like Google Docs' `requiredRevisionId`. The tag is an HMAC of the document id and
// the seq form under a random key kept beside the document in its store (a side record): every
// node of a cluster reads the same key from PostgreSQL, a restart keeps it, and erasing the
// document erases it, so a document written again under the same id gives out bases of a new
// epoch. `tandem migrate` does not copy it: bases given out before a migration are refused.
// A seq alone names a state only within one document's log: `18` from another document, or a `0`
// nobody was given, would make the write's diff re-insert what the document already holds.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { AppError } from '../infra/errors.js'
import type { DocStore } from '../storage/doc-store.js'
import { formatBase, parseBase, type Base } from './base.js'

/** The side record holding a document's base key. */
const BASE_KEY_META = 'base-key'

/** 12 bytes of HMAC-SHA256 (16 base64url characters): a guess is one request, 2^96 of them are not made. */
const TAG_BYTES = 12
const TOKEN = /^(\d{1,15}(?:~\d{1,15}){0,64})\.([A-Za-z0-9_-]{16})$/
const SEQ_FORM = /^\d{1,15}(~\d{1,15})*$/

/** Issues and checks one document's bases. */
export interface BaseSeal {
  /** the token a client sends back for `base` */
  seal(base: Base): string
  /** the base a token names; 400 for anything this document did not give out */
  open(token: unknown): Base
}

async function keyOf(store: DocStore, docId: string): Promise<Uint8Array> {
  return (await store.readMeta(docId, BASE_KEY_META)) ?? store.claimMeta(docId, BASE_KEY_META, randomBytes(32))
}

/** The seal of `docId`'s bases (creates the document's key on first use). */
export async function baseSealOf(store: DocStore, docId: string): Promise<BaseSeal> {
  const key = await keyOf(store, docId)
  const tagOf = (form: string) => createHmac('sha256', key).update(`${docId}\n${form}`).digest().subarray(0, TAG_BYTES)
  return {
    seal: (base) => {
      const form = formatBase(base)
      return `${form}.${tagOf(form).toString('base64url')}`
    },
    open(token) {
      if (typeof token !== 'string')
        throw new AppError('bad_request', 'base must be the string a read of this document answered')
      const m = TOKEN.exec(token)
      if (!m) {
        if (SEQ_FORM.test(token))
          throw new AppError(
            'bad_request',
            `base ${JSON.stringify(token)} names no document (a bare seq, the form before bases were tied to their document): read the document again for its base`,
          )
        throw new AppError(
          'bad_request',
          'base is not a base this server gave out: read the document again for its base',
        )
      }
      const given = Buffer.from(m[2]!, 'base64url')
      if (given.length !== TAG_BYTES || !timingSafeEqual(given, tagOf(m[1]!))) {
        throw new AppError(
          'bad_request',
          "base was not given out for this document (another document's, made up, or from before the document was erased or its storage migrated): read the document again for its base",
        )
      }
      return parseBase(m[1])
    },
  }
}
