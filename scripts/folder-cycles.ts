// CI check beside madge: no loop between the top-level folders of src/ (madge sees file cycles
// only; two folders importing each other through different files is the loop it misses).
// Type-only imports count too: a folder that names another's types depends on it.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

const root = resolve(import.meta.dirname, '..', 'src')

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) yield* sources(path)
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) yield path
  }
}

/**
 * The top-level folder a file belongs to. A file directly in src/ (server.ts, deps.ts, ...) is a
 * node of its own: a folder that imports deps.ts while deps.ts imports that folder is a loop too.
 */
function folderOf(path: string): string {
  // an import names `deps.js` for the source `deps.ts`
  return relative(root, path).split(sep)[0]!.replace(/\.js$/, '.ts')
}

const edges = new Map<string, Map<string, string>>() // from -> to -> one file that makes the edge
for (const file of sources(root)) {
  const from = folderOf(file)
  for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)) {
    const to = folderOf(resolve(dirname(file), m[1]!))
    if (to === from) continue
    if (!edges.has(from)) edges.set(from, new Map())
    if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, relative(root, file))
  }
}

// Depth-first search for a back edge; prints every loop found as a path with one file per step.
const loops: string[] = []
const state = new Map<string, 'open' | 'done'>()
const path: string[] = []
function visit(folder: string): void {
  state.set(folder, 'open')
  path.push(folder)
  for (const next of edges.get(folder)?.keys() ?? []) {
    if (state.get(next) === 'open') {
      const loop = [...path.slice(path.indexOf(next)), next]
      loops.push(loop.map((f, i) => (i < loop.length - 1 ? `${f} (${edges.get(f)!.get(loop[i + 1]!)})` : f)).join(' -> '))
    } else if (!state.has(next)) visit(next)
  }
  path.pop()
  state.set(folder, 'done')
}
for (const folder of [...edges.keys()].sort()) if (!state.has(folder)) visit(folder)

if (loops.length > 0) {
  console.error(`folder loops in src/:\n${loops.map((l) => `  ${l}`).join('\n')}`)
  process.exit(1)
}
console.log(`no folder loops among ${new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])]).size} folders of src/`)
