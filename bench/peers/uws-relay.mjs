#!/usr/bin/env node
// The floor for the traffic scenarios: a bare uWS relay that parses nothing. Each path is a room;
// every message goes to the room's other sockets as it came. A client's sync step 1 gets an empty
// step 2 so it counts as synced; nothing is stored, so it has no place in storm or cold.
// uWS comes from the server's own loader (whichever installed build loads here); where none does the
// relay says why and exits 1, since uWS's JavaScript stand-in would not be the floor it is meant as.
// `node --import tsx bench/peers/uws-relay.mjs [--port N]` prints `listening on http://127.0.0.1:PORT (BUILD)`.
import { loadUws } from '../../src/collab/listener/uws-build.ts'

const loaded = loadUws()
if (!('native' in loaded)) {
  console.error(`relay: no uWebSockets.js here: ${loaded.missing}`)
  process.exit(1)
}
const uWS = loaded.native

const args = process.argv.slice(2)
const i = args.indexOf('--port')
const port = i >= 0 ? Number(args[i + 1]) : 0

// messageSync, syncStep2, an update of 2 bytes: no structs, no deletions
const EMPTY_STEP2 = new Uint8Array([0, 1, 2, 0, 0])

uWS
  .App()
  .ws('/*', {
    maxPayloadLength: 16 * 1024 * 1024,
    maxBackpressure: 64 * 1024 * 1024,
    idleTimeout: 120,
    upgrade: (res, req, context) => {
      res.upgrade(
        { room: req.getUrl() },
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        context,
      )
    },
    open: (ws) => ws.subscribe(ws.getUserData().room),
    message: (ws, message, isBinary) => {
      const bytes = new Uint8Array(message)
      if (bytes[0] === 0 && bytes[1] === 0) ws.send(EMPTY_STEP2, true)
      else ws.publish(ws.getUserData().room, message, isBinary)
    },
  })
  .listen('127.0.0.1', port, (token) => {
    if (!token) {
      console.error('relay could not listen')
      process.exit(1)
    }
    console.log(`listening on http://127.0.0.1:${uWS.us_socket_local_port(token)} (${loaded.build})`)
  })
