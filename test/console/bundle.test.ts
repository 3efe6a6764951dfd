// The console bundle: built from web/ when missing or stale (a changed source), left alone when
// fresh, and served at / with its security headers, gzip and ETags.
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { buildConsole, consoleFiles, isFresh, PACKAGE_ROOT } from '../../src/api/console/bundle.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

const cleanups: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

describe('console bundle', () => {
  it('is built when missing, kept when fresh, and rebuilt after a source changes', async () => {
    // A copy of web/ inside the package, so its imports resolve from the same node_modules.
    await mkdir(join(PACKAGE_ROOT, 'test-artifacts'), { recursive: true })
    const root = await mkdtemp(join(PACKAGE_ROOT, 'test-artifacts', 'bundle-'))
    cleanups.push(() => rm(root, { recursive: true, force: true }))
    const paths = { web: join(root, 'web'), out: join(root, 'out') }
    await cp(join(PACKAGE_ROOT, 'web'), paths.web, { recursive: true })
    expect(await isFresh(paths)).toBe(false)

    const files = await consoleFiles(paths)
    expect([...files.keys()].sort()).toEqual(['app.css', 'app.js', 'index.html'])
    expect(files.get('app.js')!.body.toString()).toContain('collab-token')
    expect(await isFresh(paths)).toBe(true)
    const builtAt = (await stat(join(paths.out, 'app.js'))).mtimeMs

    const css = join(paths.web, 'src', 'console.css')
    await writeFile(css, (await readFile(css, 'utf8')) + '\n.bundle-test-marker { color: red; }\n')
    expect(await isFresh(paths)).toBe(false)
    // A running process keeps the files it loaded; the next start finds the bundle stale and builds.
    expect(await consoleFiles({ ...paths })).toBe(files)
    await buildConsole(paths)
    expect(await isFresh(paths)).toBe(true)
    expect(await readFile(join(paths.out, 'app.css'), 'utf8')).toContain('bundle-test-marker')
    expect((await stat(join(paths.out, 'app.js'))).mtimeMs).toBeGreaterThanOrEqual(builtAt)
  })

  it('is served at / with a CSP, gzip on request, and 304 for a matching ETag', async () => {
    const h: Harness = await startTandem()
    cleanups.push(() => h.close())
    const base = `http://127.0.0.1:${h.server.apiPort}`
    const page = await fetch(base + '/')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'")
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(await page.text()).toContain('<script type="module" src="/console/app.js"></script>')

    const raw = await fetch(base + '/console/app.js', { headers: { 'accept-encoding': 'identity' } })
    const body = Buffer.from(await raw.arrayBuffer())
    expect(raw.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(raw.headers.get('content-encoding')).toBeNull()

    // Node's fetch would decode gzip itself; read the wire bytes with http instead.
    const { request } = await import('node:http')
    const gz = await new Promise<{ headers: Record<string, unknown>; bytes: Buffer }>((resolve, reject) => {
      request(base + '/console/app.js', { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }))
      })
        .on('error', reject)
        .end()
    })
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gz.bytes).equals(body)).toBe(true)
    expect(gz.bytes.length).toBeLessThan(body.length / 2)

    const etag = raw.headers.get('etag')!
    const cached = await fetch(base + '/console/app.js', {
      headers: { 'accept-encoding': 'identity', 'if-none-match': etag },
    })
    expect(cached.status).toBe(304)
    expect((await fetch(base + '/console/nope.js')).status).toBe(404)
  })
})
