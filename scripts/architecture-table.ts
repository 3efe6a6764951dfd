// CI check: the "imports" column of docs/architecture.md's table of src/ folders is what the code
// imports, and every folder has a row. `--write` rewrites the column from the code; without it the
// script fails on any difference. The layer (folder-graph.ts) says how high a folder stacks.
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { folderEdges, layers } from './folder-graph.js'

const DOC = resolve(import.meta.dirname, '..', 'docs', 'architecture.md')
const HEADER = '| folder | holds | imports (layer: what it stacks on) |'

const edges = folderEdges()
const layer = layers(edges)
const folders = [...edges.keys()].filter((f) => !f.startsWith('@'))
const label = (f: string) => (f.startsWith('@') || f.endsWith('.ts') ? f : `${f}/`)

/** The generated cell: the folder's layer, then what it imports, highest layer first. */
function importsCell(folder: string): string {
  const to = [...(edges.get(folder)?.keys() ?? [])].sort((a, b) => layer.get(b)! - layer.get(a)! || a.localeCompare(b))
  return `${layer.get(folder)}: ${to.length === 0 ? 'nothing' : to.map((t) => `\`${label(t)}\``).join(', ')}`
}

const text = readFileSync(DOC, 'utf8')
const lines = text.split('\n')
const head = lines.indexOf(HEADER)
if (head < 0) throw new Error(`${DOC}: no table headed ${HEADER}`)
const problems: string[] = []
const seen = new Set<string>()
for (let i = head + 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
  const cells = lines[i]!.split(' | ')
  const name = /^\| `([^`]+)`$/.exec(cells[0]!)?.[1]?.replace(/\/$/, '')
  if (!name || !edges.has(name)) {
    problems.push(`row ${i + 1} names no folder of src/ (one folder per row): ${cells[0]}`)
    continue
  }
  seen.add(name)
  cells[cells.length - 1] = `${importsCell(name)} |`
  lines[i] = cells.join(' | ')
}
for (const f of folders) if (!seen.has(f)) problems.push(`no row for src/${label(f)}`)
const out = lines.join('\n')
const tiers = Math.max(...layer.values()) + 1

if (process.argv.includes('--write')) {
  writeFileSync(DOC, out)
  console.log(`docs/architecture.md: imports of ${seen.size} folders written (${tiers} layers)`)
} else if (out !== text) {
  problems.push('the imports column differs from the code: run node --import tsx scripts/architecture-table.ts --write')
}
if (problems.length > 0) {
  console.error(problems.map((p) => `docs/architecture.md: ${p}`).join('\n'))
  process.exit(1)
}
console.log(`docs/architecture.md's folder table matches the code: ${folders.length} folders in ${tiers} layers`)
