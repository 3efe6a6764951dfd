// Structured JSON logs. Tokens and API keys never reach a log line: callers log ids, not secrets,
// and the redact list catches the headers and fields that could carry one by accident (the
// PostgreSQL URL carries a password: it is never logged either).
import { pino, type Logger } from 'pino'

export type { Logger }

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { svc: 'tandem' },
    redact: {
      paths: ['yauth', 'token', 'apiKey', 'req.headers["x-api-key"]', 'req.headers.authorization', 'req.query.yauth', '*.yauth', '*.token', 'postgresUrl', '*.postgresUrl', 'connectionString', '*.connectionString'],
      censor: '[redacted]',
    },
  })
}
