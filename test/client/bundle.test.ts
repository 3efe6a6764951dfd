// @tandem/client as it is published (packages/client): the build writes ESM and declarations that
// Node resolves by the package's name, `npm pack` holds that build and no server code, and the
// browser build of the client holds no Node module (esbuild's browser platform refuses Node
// built-ins) and nothing of the server but the pure wire-protocol module.
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { beforeAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const CLIENT = fileURLToPath(new URL('../../packages/client', import.meta.url))

describe('@tandem/client build', () => {
  // the package's own build, as npm pack runs it (no script of the server's)
  beforeAll(() => run('npm', ['run', 'build', '-w', '@tandem/client']), 90_000)

  it('is importable by its name, with its declarations', async () => {
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      "const m = await import('@tandem/client'); console.log(typeof m.TandemClient, typeof m.TandemError)",
    ])
    expect(stdout.trim()).toBe('function function')
    const pkg = JSON.parse(await readFile(join(CLIENT, 'package.json'), 'utf8')) as {
      exports: Record<string, Record<string, string>>
    }
    await expect(readFile(join(CLIENT, pkg.exports['.']!.types!), 'utf8')).resolves.toContain('TandemClient')
  })

  it("declares the server's types written out, with no path into the server", async () => {
    const types = await readFile(join(CLIENT, 'dist/types.d.ts'), 'utf8')
    expect(types).toMatch(/export type CollabToken = \{ token: string; access_type: "r" \| "rw";/)
    expect(types).toMatch(/export type CollabTokenOptions = \{ access\?: "view" \| "edit";/)
    for (const file of [
      'index.d.ts',
      'client.d.ts',
      'document.d.ts',
      'doc-rest.d.ts',
      'rows-query.d.ts',
      'types.d.ts',
      'index.js',
    ]) {
      expect(await readFile(join(CLIENT, 'dist', file), 'utf8')).not.toMatch(
        /from ['"](\.\.\/|zod['"])|import\(['"]\.\.\/|src\/api\//,
      )
    }
  })

  it('packs its build, package.json, README and LICENSE only: no server code', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '-w', 'packages/client'])
    const [packed] = JSON.parse(stdout) as { name: string; files: { path: string }[] }[]
    expect(packed!.name).toBe('@tandem/client')
    const files = packed!.files.map((f) => f.path).sort()
    expect(files).toContain('dist/index.js')
    expect(files).toContain('dist/types.d.ts')
    expect(
      files.filter((f) => !f.startsWith('dist/') && f !== 'package.json' && f !== 'README.md' && f !== 'LICENSE'),
    ).toEqual([])
    expect(files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toBe(false)
  })

  it('bundles for browsers from the client and the pure protocol module only', async () => {
    const r = await build({
      entryPoints: ['packages/client/src/index.ts'],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      metafile: true,
      logLevel: 'silent',
    })
    const own = Object.keys(r.metafile.inputs).filter((p) => !p.startsWith('node_modules/'))
    expect(own.every((p) => p.startsWith('packages/client/src/') || p.startsWith('packages/protocol/src/'))).toBe(true)
    const bytes = r.outputFiles[0]!.contents
    // docs/sdk.md quotes the size: 96 KB minified, 30 KB gzipped with Yjs and y-websocket inside
    expect(gzipSync(bytes).length).toBeLessThan(40_000)
  })
})
