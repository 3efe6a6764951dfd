// The web console on the api listener: `/` is its page, `/console/app.js` and `/console/app.css` its
// bundle (same origin as /api/v0, so the API needs no CORS). No key is needed to load the page; it
// holds no data until the user signs in with an API key.
import type { Context, Next } from 'koa'
import { AppError } from '../../infra/errors.js'
import type { Logger } from '../../infra/log.js'
import { consoleFiles, type ConsoleFile } from './bundle.js'

const PATHS: Record<string, string> = { '/': 'index.html', '/console/app.js': 'app.js', '/console/app.css': 'app.css' }

// The collab listener is another origin (port): the page talks to it over http(s) and ws(s).
const CSP = [
  "default-src 'self'",
  "connect-src 'self' http: https: ws: wss:",
  // y-prosemirror colours remote cursors with style attributes
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

export function serveConsole(log: Logger) {
  return async function consolePage(ctx: Context, next: Next): Promise<void> {
    const name = PATHS[ctx.path]
    if (!name || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next()
    let file: ConsoleFile | undefined
    try {
      file = (await consoleFiles()).get(name)
    } catch (err) {
      log.error({ err }, 'console bundle unavailable')
      throw new AppError('unavailable', 'The console bundle could not be built; see the server log')
    }
    if (!file) return next()
    ctx.set('Cache-Control', 'no-cache')
    ctx.set('X-Content-Type-Options', 'nosniff')
    ctx.set('Referrer-Policy', 'no-referrer')
    ctx.vary('Accept-Encoding')
    if (name === 'index.html') {
      ctx.set('Content-Security-Policy', CSP)
      ctx.set('X-Frame-Options', 'DENY')
    }
    const gzip = ctx.acceptsEncodings('gzip', 'identity') === 'gzip'
    // Each encoding is its own representation, so it gets its own tag.
    const etag = gzip ? file.etag.slice(0, -1) + '-gz"' : file.etag
    ctx.set('ETag', etag)
    if (ctx.get('if-none-match') === etag) {
      ctx.status = 304
      return
    }
    ctx.type = file.type
    if (gzip) ctx.set('Content-Encoding', 'gzip')
    ctx.body = gzip ? file.gzip : file.body
  }
}
