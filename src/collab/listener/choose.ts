// Which transport carries the collab listener, chosen once at start (--transport, TANDEM_TRANSPORT):
// uWebSockets.js where its prebuilt binary loads, the `ws` package on node:http everywhere else.
//
// uWS is loaded here and only here, lazily. Its package's entry, on a Node.js whose ABI it ships no
// binary for, prints "This version of µWS is not compatible ... Falling back to a NodeJS
// implementation" and hands back a JavaScript stand-in that the collab listener does not work on. So
// the binary for this platform and ABI is required directly: it loads (that is the module the entry
// would return) or throws, and `auto` then takes `ws`. The uws/ code itself only names uWS's types
// (the module is handed in), so it is part of a plain start; the ws transport is imported when chosen.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type uWS from 'uWebSockets.js'
import { ConfigError, type Config } from '../../infra/config.js'
import type { Logger } from '../../infra/log.js'
import { createUwsApp } from '../uws/app.js'
import type { CollabApp } from './deps.js'

type Loaded = { native: typeof uWS } | { missing: string }

/** The uWS binary for this process's platform, architecture and ABI, or why there is none. */
export function loadUws(): Loaded {
  const require = createRequire(import.meta.url)
  let dir: string
  try {
    dir = dirname(require.resolve('uWebSockets.js/package.json'))
  } catch {
    return { missing: 'the uWebSockets.js package is not installed' }
  }
  const name = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`
  // the upstream layout keeps binaries at the package's root; the @trufflesuite build under binaries/
  const file = [join(dir, 'binaries', name), join(dir, name)].find((f) => existsSync(f))
  if (!file) return { missing: `no ${name} (Node.js ${process.version}, ABI ${process.versions.modules})` }
  try {
    return { native: require(file) as typeof uWS }
  } catch (err) {
    return { missing: `${name} does not load: ${(err as Error).message.split('\n')[0]}` }
  }
}

/** The collab app on the configured transport; logs which one and why. */
export async function createCollabApp(config: Pick<Config, 'transport'>, log: Logger): Promise<CollabApp> {
  if (config.transport !== 'ws') {
    const loaded = loadUws()
    if ('native' in loaded) {
      log.info({ transport: 'uws', setting: config.transport }, 'collab transport: uWebSockets.js')
      return createUwsApp(loaded.native)
    }
    if (config.transport === 'uws') throw new ConfigError(`--transport uws: uWebSockets.js cannot run here: ${loaded.missing}; use --transport ws or auto`)
    log.info({ transport: 'ws', setting: 'auto', uws: loaded.missing }, 'collab transport: ws (uWebSockets.js cannot run here)')
  } else log.info({ transport: 'ws', setting: 'ws' }, 'collab transport: ws')
  return (await import('../ws/app.js')).createWsApp()
}
