// CI check beside madge: no loop between the top-level folders of src/ (madge sees file cycles
// only; two folders importing each other through different files is the loop it misses), and one
// front door: only the commands (cli/, main.ts) import the composition (compose/).
import { folderEdges } from './folder-graph.js'

const edges = folderEdges()

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
      loops.push(
        loop.map((f, i) => (i < loop.length - 1 ? `${f} (${edges.get(f)!.get(loop[i + 1]!)})` : f)).join(' -> '),
      )
    } else if (!state.has(next)) visit(next)
  }
  path.pop()
  state.set(folder, 'done')
}
for (const folder of [...edges.keys()].sort()) if (!state.has(folder)) visit(folder)

/** Who may import the composition: it imports everything, so anything else importing it is a loop in waiting. */
const FRONT_DOOR_USERS = new Set(['cli', 'main.ts'])
const intoFrontDoor = [...edges].filter(([from, tos]) => tos.has('compose') && !FRONT_DOOR_USERS.has(from))
if (intoFrontDoor.length > 0) {
  console.error(
    `only cli/ and main.ts import compose/:\n${intoFrontDoor.map(([from, tos]) => `  ${from} (${tos.get('compose')})`).join('\n')}`,
  )
  process.exit(1)
}

if (loops.length > 0) {
  console.error(`folder loops in src/:\n${loops.map((l) => `  ${l}`).join('\n')}`)
  process.exit(1)
}
console.log(
  `no folder loops among ${new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])]).size} folders of src/`,
)
