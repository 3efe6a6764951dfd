// Structured JSON logs. Tokens and API keys never reach a log line: callers log ids, not secrets,
// the redact list catches the fields that could carry one by accident, and every finished line is
// scrubbed of capability tokens wherever they hide in text (URLs with `?yauth=`, `yauth-` protocol
// entries, `Bearer` headers, error messages and stacks), and of connection URLs (PostgreSQL, Redis:
// they carry passwords).
import { pino, type DestinationStream, type Logger } from 'pino'

export type { Logger }

// A JWS compact token (three base64url parts, the first two JSON objects start "eyJ"), and the
// value after `yauth=`, `yauth-` or `Bearer ` whatever its shape (a malformed token is a secret too).
const JWS = /eyJ[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g
const CARRIER = /(yauth[=-]|Bearer\s+)[^\s&"'\\,;]+/gi

const CONNECTION_URL = /\b(postgres(?:ql)?|rediss?):\/\/[^\s"'\\]+/gi

export function scrubTokens(line: string): string {
  return line.replace(JWS, '[redacted]').replace(CARRIER, '$1[redacted]').replace(CONNECTION_URL, '<$1-url>')
}

/** The stream every line goes through, scrubbed, on its way to `dest` (stdout by default). */
function scrubbing(dest: DestinationStream): DestinationStream {
  return { write: (line: string) => dest.write(scrubTokens(line)) }
}

let stdout: DestinationStream | undefined

/** `dest` defaults to stdout (one shared destination, however many loggers). */
export function createLogger(level: string, dest: DestinationStream = (stdout ??= pino.destination(1))): Logger {
  return pino(
    {
      level,
      base: { svc: 'tandem' },
      redact: {
        paths: [
          'yauth',
          'token',
          'apiKey',
          'req.headers["x-api-key"]',
          'req.headers.authorization',
          'req.query.yauth',
          '*.yauth',
          '*.token',
          'postgresUrl',
          '*.postgresUrl',
          'redisUrl',
          '*.redisUrl',
          'connectionString',
          '*.connectionString',
        ],
        censor: '[redacted]',
      },
    },
    scrubbing(dest),
  )
}
