// No file imports across a package's folder by a relative path: a file of packages/<x>/ imports
// only within packages/<x>/ (anything else by package name), and src/, web/, bench/, test/,
// scripts/ and bin/ never reach into a package's sources (packages/<x>/src/) but import it by its
// name. Otherwise a package would build, test or publish only beside the files it reaches for.
//
// `node --import tsx scripts/package-boundaries.ts [ROOT]` (npm run boundaries, in CI after the
// cycles check): lists every offending import and exits 1.
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

export interface Offence {
  /** the importing file, relative to the root */
  file: string
  line: number
  specifier: string
  /** where the specifier points, relative to the root */
  target: string
  why: string
}

/** Folders beside packages/ whose files use the packages by name only. */
const USERS = ['src', 'web', 'bench', 'test', 'scripts', 'bin']
const SKIPPED = new Set(['node_modules', 'dist', '.cache'])
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/

async function* codeFiles(dir: string): AsyncGenerator<string> {
  let entries
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch {
    return // a folder this tree does not have
  }
  for (const e of entries) {
    if (e.isDirectory() && !SKIPPED.has(e.name)) yield* codeFiles(join(dir, e.name))
    else if (e.isFile() && CODE.test(e.name) && !e.name.endsWith('.d.ts')) yield join(dir, e.name)
  }
}

/** `path` relative to `root` with forward slashes. */
const rel = (root: string, path: string) => relative(root, path).split(sep).join('/')

/** Every relative import of `file` (static, dynamic, re-export, require) with its line. */
async function relativeImports(file: string): Promise<{ specifier: string; line: number }[]> {
  const text = await readFile(file, 'utf8')
  const lineOf = (pos: number) => text.slice(0, pos).split('\n').length
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.filter((f) => f.fileName.startsWith('./') || f.fileName.startsWith('../'))
    .map((f) => ({ specifier: f.fileName, line: lineOf(f.pos) }))
}

/** What is wrong with an import from `from` to `to` (both relative to the root), or null. */
function problem(from: string, to: string): string | null {
  const own = /^packages\/([^/]+)\//.exec(from)?.[1]
  if (own !== undefined) return to.startsWith(`packages/${own}/`) ? null : `leaves packages/${own}/`
  const into = /^packages\/([^/]+)\/src(\/|$)/.exec(to)?.[1]
  return into === undefined ? null : `reaches into packages/${into}/src: import the package by name`
}

export async function packageBoundaryOffences(root: string): Promise<Offence[]> {
  const packages = (await readdir(join(root, 'packages'), { withFileTypes: true }).catch(() => [])).filter((e) =>
    e.isDirectory(),
  )
  const folders = [...packages.map((p) => join(root, 'packages', p.name)), ...USERS.map((u) => join(root, u))]
  const out: Offence[] = []
  for (const folder of folders) {
    for await (const file of codeFiles(folder)) {
      for (const { specifier, line } of await relativeImports(file)) {
        const from = rel(root, file)
        const target = rel(root, resolve(dirname(file), specifier))
        const why = problem(from, target)
        if (why) out.push({ file: from, line, specifier, target, why })
      }
    }
  }
  return out
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = resolve(process.argv[2] ?? fileURLToPath(new URL('../', import.meta.url)))
  const offences = await packageBoundaryOffences(root)
  for (const o of offences) process.stderr.write(`${o.file}:${o.line}  '${o.specifier}' -> ${o.target}: ${o.why}\n`)
  if (offences.length) {
    process.stderr.write(`${offences.length} import(s) cross a package's folder by a relative path\n`)
    process.exit(1)
  }
  process.stdout.write("no import crosses a package's folder by a relative path\n")
}
