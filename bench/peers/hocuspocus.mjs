#!/usr/bin/env node
// Hocuspocus peer for the bench: `node bench/peers/hocuspocus.mjs [--port N] [--data-dir DIR]`.
// Without --data-dir it keeps documents in memory (the stock server); with it, the Database
// extension stores each document as one file (encoded state), written after the usual debounce.
// Prints `listening on http://127.0.0.1:PORT` once ready. Plain JS so no loader runs in the server.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Database } from '@hocuspocus/extension-database'
import { Server } from '@hocuspocus/server'

const args = process.argv.slice(2)
const flag = (name) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : undefined
}
const port = Number(flag('port') ?? 0)
const dataDir = flag('data-dir')

const fileOf = (name) => join(dataDir, `${encodeURIComponent(name)}.ydoc`)
const extensions = []
if (dataDir) {
  await mkdir(dataDir, { recursive: true })
  extensions.push(
    new Database({
      fetch: async ({ documentName }) => {
        try {
          return new Uint8Array(await readFile(fileOf(documentName)))
        } catch (err) {
          if (err.code === 'ENOENT') return null
          throw err
        }
      },
      store: async ({ documentName, state }) => {
        const path = fileOf(documentName)
        await writeFile(`${path}.tmp`, state)
        await rename(`${path}.tmp`, path)
      },
    }),
  )
}

const server = new Server({ port, address: '127.0.0.1', quiet: true, extensions })
await server.listen()
console.log(`listening on http://127.0.0.1:${server.address.port}`)
