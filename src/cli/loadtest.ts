// `tandem loadtest`: load on a running deployment (docs/loadtest.md). Bad input, an unreachable
// target or a refused key is one line and exit 2 before any load; a missed threshold exit 1.
// With --workers N the command forks itself N times (TANDEM_LOADTEST_WORKER=1) and coordinates.
import { fork } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { BadInput, helpText, parseOptions, type LoadtestOptions } from '../loadtest/options.js'
import { preflight } from '../loadtest/preflight.js'
import { markdownReport, svgReport, textReport, type Report } from '../loadtest/report.js'
import { runLoad, type FromWorker, type ToWorker } from '../loadtest/run.js'
import { runShard, type ShardSpec } from '../loadtest/shard.js'

interface Io {
  out(s: string): void
  err(s: string): void
}

const stdio: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) }

export async function runLoadtest(argv: string[], env: NodeJS.ProcessEnv, io: Io = stdio): Promise<number> {
  if (env.TANDEM_LOADTEST_WORKER === '1') return runWorker()
  let o: LoadtestOptions
  try {
    const parsed = parseOptions(argv)
    if (parsed === 'help') {
      io.out(helpText())
      return 0
    }
    o = parsed
  } catch (e) {
    if (!(e instanceof BadInput)) throw e
    io.err(`tandem loadtest: ${e.message}\n`)
    return 2
  }
  let checked
  try {
    checked = await preflight(o)
  } catch (e) {
    io.err(`tandem loadtest: ${(e as Error).message}\n`)
    return 2
  }
  // The load's edits stay in these documents and their history: say which they are.
  if (!o.quiet)
    io.err(`tandem loadtest: ${o.scenario} on ${checked.target.describe}; the load writes into these documents\n`)

  let onInterrupt = () => {}
  const interrupted = new Promise<void>((resolve) => (onInterrupt = resolve))
  const sigint = () => {
    io.err('tandem loadtest: interrupted; stopping and reporting what was measured\n')
    onInterrupt()
  }
  process.once('SIGINT', sigint)
  let report: Report
  try {
    report = await runLoad(o, checked.assets, {
      progress: (line) => o.quiet || io.err(`${line}\n`),
      interrupted,
      ...(o.workers > 1
        ? {
            fork: () =>
              fork(process.argv[1]!, ['loadtest'], {
                env: { ...env, TANDEM_LOADTEST_WORKER: '1' },
                execArgv: process.execArgv,
                stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
              }),
          }
        : {}),
    })
  } finally {
    process.off('SIGINT', sigint)
  }

  io.out(textReport(report))
  if (o.json) await write(o.json, JSON.stringify(report, null, 2) + '\n')
  if (o.markdown) {
    const svg = `${o.markdown.replace(/\.md$/, '')}.svg`
    await write(svg, svgReport(report))
    await write(o.markdown, markdownReport(report, basename(svg)))
  }
  const missed = report.thresholds.filter((t) => !t.ok)
  for (const t of missed)
    io.err(`tandem loadtest: threshold missed: --${t.name} ${t.limit}, measured ${t.value ?? 'nothing'}\n`)
  return missed.length ? 1 : 0
}

async function write(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true })
  await writeFile(file, text)
}

/** A forked worker: one shard, driven by the coordinator's messages. */
async function runWorker(): Promise<number> {
  const send = (m: FromWorker) => {
    if (process.connected) process.send!(m)
  }
  let spec!: ShardSpec
  let openWindow!: (w: { at: number; until: number }) => void
  let stop!: () => void
  const window = new Promise<{ at: number; until: number }>((r) => (openWindow = r))
  const stopped = new Promise<void>((r) => (stop = r))
  const gotSpec = new Promise<void>((resolve) => {
    process.on('message', (m: ToWorker) => {
      if (m.type === 'spec') {
        spec = m.spec
        resolve()
      } else if (m.type === 'window') openWindow({ at: m.at, until: m.until })
      else stop()
    })
  })
  process.once('disconnect', () => stop()) // the coordinator is gone: stop too
  process.on('SIGINT', () => {}) // Ctrl-C reaches the whole group: the coordinator decides
  await gotSpec
  try {
    await runShard(spec, { report: (kind, snapshot) => send({ kind, snapshot }), window: () => window, stopped })
  } catch (e) {
    send({ kind: 'error', message: (e as Error).message })
  }
  process.disconnect?.()
  return 0
}
