// The collab listen socket. uWS sets SO_REUSEPORT unless told otherwise, so a second process on the
// same port would bind too and the kernel would split connections between the two servers; the
// exclusive flag keeps SO_REUSEADDR (restarts over TIME_WAIT sockets) and drops SO_REUSEPORT.
import uWS from 'uWebSockets.js'

// The native listen takes (host, port, options, cb); the bundled typings only list (port, options, cb).
type ListenWithOptions = (host: string, port: number, options: number, cb: (s: uWS.us_listen_socket | false) => void) => unknown

const EXCLUSIVE_PORT = (uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT?: number }).LIBUS_LISTEN_EXCLUSIVE_PORT ?? 1

export function listenExclusive(app: uWS.TemplatedApp, host: string, port: number): Promise<uWS.us_listen_socket> {
  return new Promise((resolve, reject) => {
    const listen = app.listen.bind(app) as unknown as ListenWithOptions
    listen(host, port, EXCLUSIVE_PORT, (s) =>
      s ? resolve(s) : reject(new Error(`collab listener could not bind ${host}:${port}`)),
    )
  })
}
