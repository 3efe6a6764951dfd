// Identifiers of control-plane records. Asset and workspace ids double as collab room names, so they
// stay inside the capability token's name alphabet.
import { randomBytes } from 'node:crypto'
import { DOC_NAME } from '../auth/capability.js'
import { AppError } from '../infra/errors.js'

export const newId = (prefix: string): string => `${prefix}-${randomBytes(8).toString('hex')}`

export function checkId(id: string, what: string): string {
  if (!DOC_NAME.test(id)) throw new AppError('bad_request', `${what} must be 1-200 characters of A-Z a-z 0-9 . _ ~ -`)
  return id
}

const EMAIL = /^[^\s@/\\]+@[^\s@/\\]+$/

/** User ids are e-mail addresses, compared case-insensitively. */
export function normalizeEmail(email: string): string {
  const e = email.trim().toLowerCase()
  if (e.length > 320 || !EMAIL.test(e))
    throw new AppError('bad_request', `not an e-mail address: ${JSON.stringify(email)}`)
  return e
}

export const iso = (ms: number | null | undefined): string | null => (ms == null ? null : new Date(ms).toISOString())
