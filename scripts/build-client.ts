// Builds the `tandem/client` subpath export: dist/client/index.js (ESM, Yjs and its protocol
// packages left as imports so an app shares one copy of Yjs) and its declarations
// (dist/client/types, emitted from the sources, so the types stay the schemas' own). The
// declarations are compiled with the DOM library and no Node types: a Node-only import in the
// client's path fails this build.
//
// `node --import tsx scripts/build-client.ts [--out-dir DIR]` (npm run build runs it).
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { readArgv } from '../src/infra/argv.js'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
/** Imported by the client and resolved by the app, never bundled. */
const CLIENT_EXTERNAL = ['yjs', 'y-websocket', 'y-protocols', 'lib0']

export async function buildClient(outDir = join(ROOT, 'dist/client')): Promise<void> {
  await build({
    entryPoints: [join(ROOT, 'src/client/index.ts')],
    outfile: join(outDir, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    external: CLIENT_EXTERNAL.flatMap((p) => [p, `${p}/*`]),
    logLevel: 'warning',
  })
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc')
  await promisify(execFile)(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.client.json'), '--outDir', join(outDir, 'types')], { cwd: ROOT })
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildClient(readArgv(process.argv.slice(2), { strings: ['out-dir'], others: 'refuse' }).values.get('out-dir'))
}
