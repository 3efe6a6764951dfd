// Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` + base64 of
// random bytes; the key is those bytes; the signature is `v1,` + base64 HMAC-SHA256 of
// `{webhook-id}.{webhook-timestamp}.{body}`, the timestamp in seconds.
import { createHmac, randomBytes } from 'node:crypto'

const SECRET_PREFIX = 'whsec_'
const SECRET_BYTES = 32 // the spec asks for 24 to 64

export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64')
}

function signatureOf(secret: string, id: string, timestampSec: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestampSec}.${body}`).digest('base64')
}

/** The three headers of one attempt (a retry is signed afresh with its own timestamp, same id). */
export function signedHeaders(secret: string, id: string, nowMs: number, body: string): Record<string, string> {
  const ts = Math.floor(nowMs / 1000)
  return { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signatureOf(secret, id, ts, body) }
}
