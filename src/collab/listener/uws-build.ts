// Which uWebSockets.js build, if any, runs on this process: the one module that loads uWS (the
// collab listener's transport choice, src/collab/listener/choose.ts, and the bench's bare relay).
//
// Two builds of uNetworking's uWebSockets.js are installed, tried in order (both republished on npm
// by third parties, pinned in package-lock.json with their integrity):
//   - `uWebSockets.js`, the alias of @trufflesuite/uws-js-unofficial 20.30: Node ABIs 93, 108, 115
//     (Node 16, 18, 20), glibc 2.x; binaries under binaries/.
//   - @btc-vision/uwebsockets.js 20.57: ABIs 115, 127, 137, 141 (Node 20, 22, 24, 25), built against
//     glibc 2.38 (Debian 13, Ubuntu 24.04 and later); binaries at the package's root.
// A package's entry, on a Node.js it has no binary for, prints "This version of µWS is not
// compatible ... Falling back to a NodeJS implementation" (trufflesuite) or throws (btc-vision), and
// the stand-in does not carry the collab listener. So the binary for this platform and ABI is
// required directly: it loads (that is the module the entry would return) or throws, the next build
// is tried; when none loads the caller says why (`auto` then takes `ws`).
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type uWS from 'uWebSockets.js'

/** The installed packages holding uWS binaries, in the order they are tried. */
const BUILDS = ['uWebSockets.js', '@btc-vision/uwebsockets.js'] as const

type Loaded = { native: typeof uWS; build: string } | { missing: string }

/**
 * The uWS binary for this process's platform, architecture and ABI from the first build that has one that loads, or why
 * none does.
 */
export function loadUws(): Loaded {
  const require = createRequire(import.meta.url)
  const name = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`
  const why: string[] = []
  for (const pkg of BUILDS) {
    // found by folder, not require.resolve: @btc-vision's `exports` hides its package.json
    const dir = require.resolve
      .paths(pkg)
      ?.map((p) => join(p, pkg))
      .find((d) => existsSync(join(d, 'package.json')))
    if (!dir) {
      why.push(`${pkg}: not installed`)
      continue
    }
    const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string }
    const build = `${meta.name}@${meta.version}`
    const file = [join(dir, 'binaries', name), join(dir, name)].find((f) => existsSync(f))
    if (!file) {
      why.push(`${build}: no ${name}`)
      continue
    }
    try {
      return { native: require(file) as typeof uWS, build }
    } catch (err) {
      why.push(`${build}: ${name} does not load: ${(err as Error).message.split('\n')[0]}`)
    }
  }
  return { missing: `Node.js ${process.version} (ABI ${process.versions.modules}): ${why.join('; ')}` }
}
