// The console's static files: `web/` bundled by esbuild into `dist/console/` (git-ignored). Built by
// `npm run build`, and again at start whenever the sources (or the packages they import) changed
// since the last build, so a fresh checkout needs no extra step. A deployment without `web/` (the
// production image) serves the bundle it shipped with.
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The package root: the nearest directory up with a package.json, from src/api/console/ (tsx) and
 * from dist/ (the bundle, where this module's own place says nothing about the tree) alike.
 */
export const PACKAGE_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)))

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) return from
  }
}
/** Bump when the build options change, so old bundles count as stale. */
const BUILD_VERSION = 1
const FILES = ['index.html', 'app.js', 'app.css'] as const

export interface ConsolePaths {
  web: string
  out: string
}

export const defaultPaths = (root = PACKAGE_ROOT): ConsolePaths => ({
  web: join(root, 'web'),
  out: join(root, 'dist', 'console'),
})

interface Manifest {
  version: number
  /** sha256 over every input file (path and bytes) */
  hash: string
  /** input files relative to the package root */
  inputs: string[]
  builtAtMs: number
}

async function hashInputs(root: string, inputs: string[]): Promise<string | null> {
  const h = createHash('sha256').update(`v${BUILD_VERSION}\0`)
  for (const rel of inputs) {
    try {
      h.update(rel + '\0').update(await readFile(join(root, rel)))
    } catch {
      return null // an input is gone: stale
    }
  }
  return h.digest('hex')
}

async function readManifest(out: string): Promise<Manifest | null> {
  try {
    const m = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as Manifest
    return m.version === BUILD_VERSION && Array.isArray(m.inputs) ? m : null
  } catch {
    return null
  }
}

/** Whether dist/console holds a bundle of exactly the current sources. */
export async function isFresh(p: ConsolePaths): Promise<boolean> {
  const m = await readManifest(p.out)
  if (!m || FILES.some((f) => !existsSync(join(p.out, f)))) return false
  const root = join(p.web, '..')
  return (await hashInputs(root, [...m.inputs, ...staticInputs(p)])) === m.hash
}

const staticInputs = (p: ConsolePaths) => [relative(join(p.web, '..'), join(p.web, 'index.html'))]

/** Bundles web/ into a temporary folder, then swaps it in whole (concurrent builders are harmless). */
export async function buildConsole(p: ConsolePaths): Promise<void> {
  // esbuild is a dev dependency: a production install serves the bundle it was built with.
  const { build } = await import('esbuild').catch((err: Error) => {
    throw new Error(
      `web/ changed since dist/console was built, and esbuild (a dev dependency) is not installed: run npm run build where it is (${err.message})`,
    )
  })
  const root = join(p.web, '..')
  const tmp = `${p.out}.tmp-${process.pid}-${Date.now()}`
  await mkdir(tmp, { recursive: true })
  try {
    const result = await build({
      entryPoints: { app: join(p.web, 'src', 'main.ts') },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      // @tandem/client from its TypeScript sources (its package.json exports), not a prior build
      conditions: ['tandem-source'],
      target: ['es2022'],
      minify: true,
      legalComments: 'none',
      metafile: true,
      outdir: tmp,
      logLevel: 'silent',
      absWorkingDir: root,
    })
    await writeFile(join(tmp, 'index.html'), await readFile(join(p.web, 'index.html')))
    const inputs = Object.keys(result.metafile.inputs).sort()
    const all = [...inputs, ...staticInputs(p)]
    const manifest: Manifest = {
      version: BUILD_VERSION,
      hash: (await hashInputs(root, all))!,
      inputs,
      builtAtMs: Date.now(),
    }
    await writeFile(join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 1))
    const old = `${p.out}.old-${process.pid}-${Date.now()}`
    await rename(p.out, old).catch(() => undefined)
    await rename(tmp, p.out).catch(async (err: NodeJS.ErrnoException) => {
      // Another process swapped its (identical) build in first.
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err
    })
    await rm(old, { recursive: true, force: true })
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
}

export interface ConsoleFile {
  body: Buffer
  gzip: Buffer
  etag: string
  type: string
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
}

async function loadFiles(out: string): Promise<Map<string, ConsoleFile>> {
  const { gzipSync } = await import('node:zlib')
  const files = new Map<string, ConsoleFile>()
  for (const name of FILES) {
    const body = await readFile(join(out, name))
    files.set(name, {
      body,
      gzip: gzipSync(body, { level: 9 }),
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      type: TYPES[name.slice(name.lastIndexOf('.') + 1)]!,
    })
  }
  return files
}

const prepared = new Map<string, Promise<Map<string, ConsoleFile>>>()

/**
 * The console's files, built first when web/ exists and the bundle is missing or stale. Once per
 * process and output folder; a failed build is retried by the next call.
 */
export function consoleFiles(p: ConsolePaths = defaultPaths()): Promise<Map<string, ConsoleFile>> {
  let files = prepared.get(p.out)
  if (!files) {
    files = (async () => {
      if (existsSync(join(p.web, 'src', 'main.ts')) && !(await isFresh(p))) await buildConsole(p)
      try {
        return await loadFiles(p.out)
      } catch {
        // A concurrent builder was swapping folders: read again once.
        await new Promise((r) => setTimeout(r, 200))
        return loadFiles(p.out)
      }
    })()
    files.catch(() => prepared.delete(p.out))
    prepared.set(p.out, files)
  }
  return files
}
