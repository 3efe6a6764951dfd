// Spawns test/cluster/child-node.ts and waits for its ready line.
import { type ChildProcess, spawn } from 'node:child_process'

export interface Child {
  proc: ChildProcess
  ready: { lease: boolean; node: string; client: number }
  kill(): Promise<void>
}

export async function startChild(args: {
  url: string
  nodeId: string
  lease: string
  leaseTtlMs: number
  heartbeatTtlMs: number
  docId: string
}): Promise<Child> {
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/cluster/child-node.ts',
      args.url,
      args.nodeId,
      args.lease,
      String(args.leaseTtlMs),
      String(args.heartbeatTtlMs),
      args.docId,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let err = ''
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()))
  const ready = await new Promise<Child['ready']>((resolve, reject) => {
    let out = ''
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const nl = out.indexOf('\n')
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)) as Child['ready'])
    })
    proc.once('exit', (code) => reject(new Error(`child exited (${code}): ${err}`)))
  })
  return {
    proc,
    ready,
    kill: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return
      const exited = new Promise((r) => proc.once('exit', r))
      proc.kill('SIGKILL')
      await exited
    },
  }
}
