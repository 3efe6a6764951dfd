// Which transport carries the collab listener, chosen once at start (--transport, TANDEM_TRANSPORT):
// uWebSockets.js where its prebuilt binary loads, the `ws` package on node:http everywhere else.
//
// uWS is loaded by uws-build.ts (the first of two builds whose binary loads, or why none does).
// The uws/ code itself only names uWS's types (the module is handed in), so it is part of a plain
// start; the ws transport is imported when chosen.
import { ConfigError, type Config } from '../../infra/config.js'
import type { Logger } from '../../infra/log.js'
import { createUwsApp } from '../uws/app.js'
import type { CollabApp } from './deps.js'
import { loadUws } from './uws-build.js'

/** The collab app on the configured transport; logs which one and why. */
export async function createCollabApp(config: Pick<Config, 'transport'>, log: Logger): Promise<CollabApp> {
  if (config.transport !== 'ws') {
    const loaded = loadUws()
    if ('native' in loaded) {
      log.info(
        { transport: 'uws', setting: config.transport, build: loaded.build },
        `collab transport: uws (${loaded.build})`,
      )
      return createUwsApp(loaded.native)
    }
    if (config.transport === 'uws')
      throw new ConfigError(
        `--transport uws: uWebSockets.js cannot run here: ${loaded.missing}; use --transport ws or auto`,
      )
    log.info(
      { transport: 'ws', setting: 'auto', uws: loaded.missing },
      'collab transport: ws (uWebSockets.js cannot run here)',
    )
  } else log.info({ transport: 'ws', setting: 'ws' }, 'collab transport: ws')
  return (await import('../ws/app.js')).createWsApp()
}
