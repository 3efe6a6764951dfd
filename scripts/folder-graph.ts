// The import graph between the top-level folders of src/, shared by the CI checks on it
// (folder-cycles.ts, architecture-table.ts). Type-only imports count: a folder that names
// another's types depends on it. Packages (`@tandem/...`) are named by their package name.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

export const srcRoot = resolve(import.meta.dirname, '..', 'src')

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) yield* sources(path)
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) yield path
  }
}

/**
 * The top-level folder a file belongs to. A file directly in src/ (main.ts) is a node of its own:
 * a folder that imports it while it imports that folder is a loop too.
 */
function folderOf(path: string): string {
  // an import names `main.js` for the source `main.ts`
  return relative(srcRoot, path).split(sep)[0]!.replace(/\.js$/, '.ts')
}

/** from -> to -> one file that makes the edge */
export type FolderEdges = Map<string, Map<string, string>>

export function folderEdges(): FolderEdges {
  const edges: FolderEdges = new Map()
  const add = (from: string, to: string, file: string) => {
    if (to === from) return
    if (!edges.has(from)) edges.set(from, new Map())
    if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, relative(srcRoot, file))
  }
  for (const file of sources(srcRoot)) {
    const from = folderOf(file)
    edges.set(from, edges.get(from) ?? new Map())
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g))
      add(from, folderOf(resolve(dirname(file), m[1]!)), file)
    for (const m of text.matchAll(/(?:from|import\()\s*'(@tandem\/[a-z-]+)/g)) add(from, m[1]!, file)
  }
  return edges
}

/**
 * Each folder's layer: 0 for one that imports no other folder, else one more than the highest
 * layer it imports. The deepest layer + 1 is how many layers the tree stacks. Assumes no loops.
 */
export function layers(edges: FolderEdges): Map<string, number> {
  const layer = new Map<string, number>()
  const of = (folder: string): number => {
    const known = layer.get(folder)
    if (known !== undefined) return known
    layer.set(folder, 0) // a loop (reported by folder-cycles.ts) cannot recurse forever
    const below = [...(edges.get(folder)?.keys() ?? [])].map(of)
    const l = below.length === 0 ? 0 : Math.max(...below) + 1
    layer.set(folder, l)
    return l
  }
  for (const folder of edges.keys()) of(folder)
  return layer
}
