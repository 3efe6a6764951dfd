// The production build: src/main.ts bundled by esbuild into dist/tandem.mjs and the chunks it
// imports (plus the PGlite worker thread's own entry, dist/pglite-worker.mjs). A start reads ~20
// files instead of ~270 (resolving and loading modules one by one was most of a cold start).
// Packages with native code or files of their own stay external and load from node_modules at run
// time. What a plain start does not need (the API listener, PostgreSQL, the cluster, history) stays
// behind its dynamic import, in chunks read on first use.
//
// `node --import tsx scripts/bundle.ts [--out-dir DIR]` (npm run build runs it).
import { mkdir, readdir, rm } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type Metafile, type Plugin } from 'esbuild'
import { readArgv } from '../src/infra/argv.js'

export const ROOT = fileURLToPath(new URL('../', import.meta.url))

/** Loaded from node_modules at run time, never bundled. */
export const EXTERNAL = [
  // native addon (one .node file per platform and ABI, loaded by src/collab/listener/choose.ts)
  'uWebSockets.js',
  // WebAssembly and data files next to its modules
  '@electric-sql/pglite',
  // a platform binary of its own (the console build)
  'esbuild',
  // optional native parts that are not installed
  'pg-native',
  'bufferutil',
  'utf-8-validate',
]

/** Files a build writes into its out dir. */
const OWN_OUTPUT =
  /^(tandem|pglite-worker|collect-worker|doc-content-worker|warm-content-worker|history-worker|chunk-[A-Z0-9]+)\.mjs(\.map)?$/

export interface Bundle {
  /** dist/tandem.mjs: what bin/tandem.js imports */
  entry: string
  /** every JavaScript file written, relative to outDir */
  files: string[]
  /** bytes of JavaScript written */
  bytes: number
  metafile: Metafile
}

// ESM output has no `require`, `__filename` or `__dirname`; the CommonJS packages inside need them
// (`require` of Node built-ins and of the external packages, resolved from the bundle's place).
const BANNER = [
  "import { createRequire as __tandemRequire } from 'node:module';",
  "import { fileURLToPath as __tandemPath } from 'node:url';",
  "import { dirname as __tandemDir } from 'node:path';",
  'const require = __tandemRequire(import.meta.url);',
  'const __filename = __tandemPath(import.meta.url);',
  'const __dirname = __tandemDir(__filename);',
].join(' ')

/**
 * classic-level (LevelDB) is bundled except its native binding: `binding.js` finds the addon from its
 * own directory, which is node_modules/classic-level at run time, not the bundle's.
 */
const levelBinding: Plugin = {
  name: 'classic-level-binding',
  setup(b) {
    b.onLoad({ filter: /[\\/]classic-level[\\/]binding\.js$/ }, () => ({
      contents:
        "module.exports = require('node-gyp-build')(require('node:path').dirname(require.resolve('classic-level')))",
      loader: 'js',
      resolveDir: join(ROOT, 'node_modules/classic-level'),
    }))
  },
}

export async function bundleServer(outDir = join(ROOT, 'dist')): Promise<Bundle> {
  await mkdir(outDir, { recursive: true })
  // The previous build's chunks (their names change with their content); dist/console stays.
  for (const old of await readdir(outDir)) if (OWN_OUTPUT.test(old)) await rm(join(outDir, old), { force: true })
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: {
      tandem: 'src/main.ts',
      'pglite-worker': 'src/database-assets/pglite/worker.ts',
      'collect-worker': 'src/collab/room/collect-worker.ts',
      'doc-content-worker': 'src/content/doc-content-worker.ts',
      'warm-content-worker': 'src/content/warm-worker.ts',
      'history-worker': 'src/history/job-worker.ts',
    },
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // Code only a dynamic import reaches goes into chunks of its own, read when first imported:
    // one file for everything compiled 4 MB at every start (start CPU ~220 ms; ~150 split, 22
    // files and 0.9 MB read before `collab listening`). Chunks sit next to the entry, so
    // `import.meta.url` means dist/ in all of them. Not minified: stacks in logs keep their names.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    // @tandem/client (the load tester's) from its TypeScript sources, as tsx takes it; `module` is
    // esbuild's default, which naming any condition would drop
    conditions: ['tandem-source', 'module'],
    plugins: [levelBinding],
    banner: { js: BANNER },
    // The PGlite worker thread's entry, relative to the bundle (src/database-assets/pglite/spawn.ts).
    define: {
      TANDEM_BUNDLED_PGLITE_WORKER: JSON.stringify('./pglite-worker.mjs'),
      TANDEM_BUNDLED_COLLECT_WORKER: JSON.stringify('./collect-worker.mjs'),
      TANDEM_BUNDLED_CONTENT_WORKER: JSON.stringify('./doc-content-worker.mjs'),
      TANDEM_BUNDLED_WARM_WORKER: JSON.stringify('./warm-content-worker.mjs'),
      TANDEM_BUNDLED_HISTORY_WORKER: JSON.stringify('./history-worker.mjs'),
    },
    sourcemap: 'linked',
    legalComments: 'eof',
    metafile: true,
    logLevel: 'silent',
  })
  const outputs = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith('.mjs'))
  return {
    entry: join(outDir, 'tandem.mjs'),
    files: outputs.map(([f]) => relative(outDir, join(ROOT, f))),
    bytes: outputs.reduce((n, [, o]) => n + o.bytes, 0),
    metafile: result.metafile,
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outDir =
    readArgv(process.argv.slice(2), { strings: ['out-dir'], others: 'refuse' }).values.get('out-dir') ??
    join(ROOT, 'dist')
  const b = await bundleServer(outDir)
  process.stdout.write(
    `bundled ${Object.keys(b.metafile.inputs).length} modules into ${relative(process.cwd(), b.entry)} and ${b.files.length - 1} more files (${(b.bytes / 1024).toFixed(0)} KB)\n`,
  )
}
