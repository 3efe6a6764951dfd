// Loopback ports for tests and benches: a free one to bind a server to, and a wait until something
// accepts connections on one.
import { readFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'

/** Ports this process handed out, so two probes never give the same one. */
const handedOut = new Set<number>()
const LOWEST = 10_000

/**
 * A port nothing listens on right now, for a server that binds it later (a node given fixed
 * ports, a restart that comes back to them). Taken below the kernel's ephemeral range: a port the
 * kernel chose for port 0 could be handed to another test's client socket before the server binds
 * it (seen: a cluster node waiting on a port a concurrent test held as a client socket's).
 */
export async function freePort(): Promise<number> {
  const below = ephemeralLow()
  for (let i = 0; below > LOWEST + 1000 && i < 100; i++) {
    const port = LOWEST + Math.floor(Math.random() * (below - LOWEST))
    if (handedOut.has(port)) continue
    if (await listensOn(port)) return (handedOut.add(port), port)
  }
  return kernelPort()
}

/** The first port of the kernel's ephemeral range (32768 when it cannot be read). */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768
  } catch {
    return 32768
  }
}

/** Whether a server can listen on the port now (it is closed again at once). */
export function listensOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer()
    s.once('error', () => resolve(false))
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
  })
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

/** Resolves once something accepts TCP connections on the port (or rejects after timeoutMs). */
export async function waitForPort(port: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = connect(port, '127.0.0.1')
      sock.once('connect', () => {
        sock.destroy()
        resolve(true)
      })
      sock.once('error', () => resolve(false))
    })
    if (ok) return
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
