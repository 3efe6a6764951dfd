// Structured JSON logs. Tokens and API keys never reach a log line: callers log ids, not secrets,
// and the redact list catches the headers and fields that could carry one by accident.
import { pino, type Logger } from 'pino'

export type { Logger }

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { svc: 'tandem' },
    redact: {
      paths: ['yauth', 'token', 'apiKey', 'req.headers["x-api-key"]', 'req.headers.authorization', 'req.query.yauth', '*.yauth', '*.token'],
      censor: '[redacted]',
    },
  })
}
