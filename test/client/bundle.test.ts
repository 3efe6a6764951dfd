// The `tandem/client` package export: the build writes ESM and declarations that Node resolves by
// the package's own name, and the browser build of the client holds no Node module and no server
// code (esbuild's browser platform refuses Node built-ins).
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { buildClient } from '../../scripts/build-client.js'

const run = promisify(execFile)

describe('tandem/client build', () => {
  it('is importable as tandem/client with its declarations', async () => {
    await buildClient()
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', "const m = await import('tandem/client'); console.log(typeof m.TandemClient, typeof m.TandemError)"])
    expect(stdout.trim()).toBe('function function')
  }, 60_000)

  it('bundles for browsers from the client and the pure protocol module only', async () => {
    const r = await build({ entryPoints: ['src/client/index.ts'], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, metafile: true, logLevel: 'silent' })
    const own = Object.keys(r.metafile.inputs).filter((p) => !p.startsWith('node_modules/'))
    expect(own.every((p) => p.startsWith('src/client/') || p.startsWith('src/protocol/'))).toBe(true)
    const bytes = r.outputFiles[0]!.contents
    // docs/sdk.md quotes the size: 96 KB minified, 30 KB gzipped with Yjs and y-websocket inside
    expect(gzipSync(bytes).length).toBeLessThan(40_000)
  })
})
