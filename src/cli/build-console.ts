// `tandem build-console`: bundles web/ into dist/console/ now (npm run build calls it), even when the
// bundle looks fresh.
import { buildConsole, defaultPaths } from '../api/console/bundle.js'

export async function runBuildConsole(): Promise<number> {
  const paths = defaultPaths()
  await buildConsole(paths)
  process.stdout.write(`console bundle written to ${paths.out}\n`)
  return 0
}
