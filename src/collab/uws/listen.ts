// The collab listen socket. uWS sets SO_REUSEPORT unless told otherwise, so a second process on the
// same port would bind too and the kernel would split connections between the two servers; the
// exclusive flag keeps SO_REUSEADDR (restarts over TIME_WAIT sockets) and drops SO_REUSEPORT.
//
// uWS sets neither option when asked for port 0 (strace: a bare bind). The connections it accepts
// inherit that, and after the process ends those a peer left half-open sit in FIN-WAIT-2 for
// net.ipv4.tcp_fin_timeout (60 s) without SO_REUSEADDR: a restart on the port it was given waited
// ~61 s (README, "Restarts", has the measurement). So port 0 is resolved here first: the kernel picks a free port
// for a throwaway socket, and uWS binds that port by number, with its options.
import { createServer } from 'node:net'
import type uWS from 'uWebSockets.js'

// The native listen takes (host, port, options, cb); the bundled typings only list (port, options, cb).
type ListenWithOptions = (
  host: string,
  port: number,
  options: number,
  cb: (s: uWS.us_listen_socket | false) => void,
) => unknown

const exclusivePort = (native: typeof uWS) =>
  (native as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT?: number }).LIBUS_LISTEN_EXCLUSIVE_PORT ?? 1
/** a port picked for port 0 can be taken by someone else before uWS binds it: pick again */
const PICK_ATTEMPTS = 5

export async function listenExclusive(
  native: typeof uWS,
  app: uWS.TemplatedApp,
  host: string,
  port: number,
): Promise<uWS.us_listen_socket> {
  const bind = (p: number) => bindPort(app, host, p, exclusivePort(native))
  if (port !== 0) return bind(port)
  for (let attempt = 1; ; attempt++) {
    try {
      return await bind(await freePortOn(host))
    } catch (err) {
      if (attempt === PICK_ATTEMPTS) throw err
    }
  }
}

function bindPort(app: uWS.TemplatedApp, host: string, port: number, options: number): Promise<uWS.us_listen_socket> {
  return new Promise((resolve, reject) => {
    const listen = app.listen.bind(app) as unknown as ListenWithOptions
    listen(host, port, options, (s) =>
      s ? resolve(s) : reject(new Error(`collab listener could not bind ${host}:${port}`)),
    )
  })
}

/** A port the kernel considers free on `host` now (the one it gives a listener asking for 0). */
function freePortOn(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen({ host: host || undefined, port: 0, exclusive: true }, () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}
