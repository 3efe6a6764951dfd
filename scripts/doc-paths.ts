// CI check: every repository path README.md, bench/README.md and docs/**/*.md cite exists. A file moved or removed
// without its docs fails here, naming the doc, the line and what was cited.
// What counts as a citation:
//   - a Markdown link to a relative target ([text](../bench/README.md)), read from the doc's folder;
//   - anywhere in the text, a path under a top-level folder (src/, test/, bench/, docs/, scripts/,
//     web/, bin/, .ci/), read from the repository root;
//   - inside `code`, a path under a folder of src/ with a file extension (`collab/registry.ts`),
//     read from src/.
// `*` and `<placeholder>` match any characters, `{a,b}` either; a path ending in `/` must be a folder;
// a bench result cited without its extension (bench/results/<stamp>) is any file of that stem.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const TOP = ['src', 'test', 'bench', 'docs', 'scripts', 'web', 'bin', '.ci']
/** what a build or a run writes, never in the tree: cited, not checked */
const GENERATED = ['dist/', 'bench/.build/', 'bench/results/local/']
const SKIP = new Set(['node_modules', 'dist', '.git', '.build', 'local'])

export interface Citation {
  /** the doc, from the repository root */
  doc: string
  line: number
  /** as written in the doc */
  cited: string
  /** what must exist, from the repository root */
  path: string
}

/** Every citation in one doc's text. `srcFolders`: the folders directly under src/. */
export function citationsIn(doc: string, text: string, srcFolders: readonly string[]): Citation[] {
  const out: Citation[] = []
  const docDir = dirname(doc)
  const lines = text.split('\n')
  const top = new RegExp(`(?<![\\w./@-])((?:${TOP.map((t) => t.replace('.', '\\.')).join('|')})/[\\w./*{},<>-]*)`, 'g')
  const inSrc = srcFolders.length
    ? new RegExp(`(?<![\\w./@-])((?:${srcFolders.join('|')})/[\\w./-]*\\.(?:ts|mjs|js|json))(?![\\w/])`, 'g')
    : null
  lines.forEach((lineText, i) => {
    const line = i + 1
    const add = (cited: string, path: string) => out.push({ doc, line, cited, path })
    for (const m of lineText.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!.replace(/[#?].*$/, '')
      if (!target || /^[a-z]+:/i.test(target)) continue
      add(m[1]!, join(docDir, decodeURI(target)))
    }
    for (const m of lineText.matchAll(top)) {
      const cited = m[1]!.replace(/[.,:;]+$/, '')
      // a link's target is checked above, from the doc's folder
      if (lineText.slice(Math.max(0, m.index - 2), m.index) === '](') continue
      // a word with a slash ("docs/s", "src/dst") is no path: one needs an extension, a
      // trailing slash, a wildcard or a second folder
      if (!/\.[\w]+$|\/$|[*<{]/.test(cited) && cited.split('/').length < 3) continue
      if (GENERATED.some((g) => `${cited}/`.startsWith(g))) continue
      add(cited, cited)
    }
    if (!inSrc) return
    for (const span of lineText.matchAll(/`([^`]+)`/g)) {
      for (const m of span[1]!.matchAll(inSrc)) add(m[1]!, join('src', m[1]!))
    }
  })
  return out
}

/** All files and folders of the repository (relative, `/`-separated), git's ignores aside. */
function listTree(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      if (SKIP.has(name)) continue
      const rel = dir ? `${dir}/${name}` : name
      out.push(rel)
      if (statSync(join(root, rel)).isDirectory()) walk(rel)
    }
  }
  walk('')
  return out
}

const escape = (s: string) => s.replace(/[.+?^$()|[\]\\]/g, '\\$&')

/** Whether a cited path (with its wildcards) names something in `tree`. */
export function exists(path: string, tree: ReadonlySet<string>): boolean {
  const wantsDir = path.endsWith('/')
  const p = path.replace(/\/+$/, '').replace(/^\.\//, '')
  if (!/[*<{]/.test(p)) {
    if (tree.has(p)) return !wantsDir || [...tree].some((f) => f.startsWith(`${p}/`))
    // a bench run named by its stem
    return p.startsWith('bench/results/') && [...tree].some((f) => f.startsWith(`${p}.`))
  }
  const pattern = escape(p)
    .replace(/\*/g, '[^/]*')
    .replace(/<[^>/]*>/g, '[^/]*')
    .replace(/\{([^}]*)\}/g, (_, alts: string) => `(?:${alts.split(',').join('|')})`)
  const re = new RegExp(`^${pattern}${wantsDir ? '/' : '$'}`)
  return [...tree].some((f) => re.test(f))
}

function docsOf(root: string): string[] {
  const docs = ['README.md', 'bench/README.md']
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const rel = `${dir}/${name}`
      if (statSync(join(root, rel)).isDirectory()) walk(rel)
      else if (name.endsWith('.md')) docs.push(rel)
    }
  }
  walk('docs')
  return docs
}

export function missingCitations(root: string): Citation[] {
  const tree = new Set(listTree(root))
  const srcFolders = readdirSync(join(root, 'src')).filter((n) => statSync(join(root, 'src', n)).isDirectory())
  const missing: Citation[] = []
  for (const doc of docsOf(root)) {
    for (const c of citationsIn(doc, readFileSync(join(root, doc), 'utf8'), srcFolders)) {
      if (!exists(relative(root, resolve(root, c.path)) + (c.path.endsWith('/') ? '/' : ''), tree)) missing.push(c)
    }
  }
  return missing
}

if (process.argv[1] === import.meta.filename) {
  const root = resolve(import.meta.dirname, '..')
  if (!existsSync(join(root, 'docs'))) throw new Error(`no docs/ under ${root}`)
  const missing = missingCitations(root)
  if (missing.length === 0) {
    process.stdout.write('every path README.md, bench/README.md and docs/ cite exists\n')
  } else {
    process.stderr.write(
      [
        `${missing.length} path(s) cited in the docs do not exist:`,
        ...missing.map(
          (c) => `  ${c.doc}:${c.line}  ${c.cited}${c.path !== c.cited ? `  (looked for ${c.path})` : ''}`,
        ),
        'A file moved or removed: cite where it is now, or drop the citation (scripts/doc-paths.ts says what counts).',
        '',
      ].join('\n'),
    )
    process.exitCode = 1
  }
}
