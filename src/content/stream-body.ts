// A stream's text sent as one request's body, read as it arrives: raw Markdown (text/markdown,
// text/plain: every piece the socket delivers is a chunk) or NDJSON (application/x-ndjson: one
// `{"text": "..."}` per line, so the chunks are the sender's own). A UTF-8 character or a line cut
// between two pieces waits for the rest; nothing is ever decoded half.
import { AppError } from '../infra/errors.js'

/** The media a stream's start takes as its whole text, in one request. */
export const STREAM_BODY_MEDIA = ['text/markdown', 'text/plain', 'application/x-ndjson'] as const

/** The most bytes one NDJSON line may carry (a chunk of 1 MiB of text, escaped). */
const MAX_LINE_BYTES = 8 * 1024 * 1024

const isNdjson = (contentType: string) => contentType.startsWith('application/x-ndjson')

/** The chunks of text a body of `contentType` carries, as its pieces arrive. */
export function bodyTexts(pieces: AsyncIterable<Uint8Array>, contentType: string): AsyncIterable<string> {
  return isNdjson(contentType) ? ndjsonTexts(pieces) : utf8Texts(pieces)
}

async function* utf8Texts(pieces: AsyncIterable<Uint8Array>): AsyncIterable<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  try {
    for await (const piece of pieces) {
      const text = decoder.decode(piece, { stream: true })
      if (text) yield text
    }
    const rest = decoder.decode()
    if (rest) yield rest
  } catch (err) {
    if (err instanceof TypeError) throw new AppError('bad_request', 'the body is not valid UTF-8')
    throw err
  }
}

async function* ndjsonTexts(pieces: AsyncIterable<Uint8Array>): AsyncIterable<string> {
  let line = 1
  for await (const text of lines(utf8Texts(pieces))) {
    const chunk = chunkOf(text, line++)
    if (chunk) yield chunk
  }
}

/** Whole lines of `texts` (a blank one skipped), each at most MAX_LINE_BYTES. */
async function* lines(texts: AsyncIterable<string>): AsyncIterable<string> {
  let held = ''
  for await (const text of texts) {
    const parts = (held + text).split('\n')
    held = parts.pop()!
    for (const one of parts) if (one.trim()) yield one
    if (held.length > MAX_LINE_BYTES) throw new AppError('payload_too_large', 'an NDJSON line is at most 8 MiB')
  }
  if (held.trim()) yield held
}

function chunkOf(line: string, n: number): string {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    throw new AppError('bad_request', `line ${n} is not JSON: send one {"text": "..."} per line`)
  }
  const text = (value as { text?: unknown } | null)?.text
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof text !== 'string')
    throw new AppError('bad_request', `line ${n} is not {"text": "..."}`)
  return text
}
