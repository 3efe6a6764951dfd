// `node --import tsx bench/ablated-server.ts serve [tandem serve flags...] [--ablate relay,nometrics,nosinks,nowrite]`
// `tandem serve` with parts of the per-update path taken away (bench/lib/ablations.ts), for
// bench/ablate.ts: every variant, the full one too, starts through here, so all run the same code.
// Never a production entry: updates are lost or unseen.
import { takeFlags } from '../src/cli/args.js'
import { runServe } from '../src/cli/serve.js'
import { createLogger } from '../src/infra/log.js'
import { ablationParts, parseAblations } from './lib/ablations.js'

const { values, rest } = takeFlags(process.argv.slice(2), ['ablate'])
const argv = rest[0] === 'serve' ? rest.slice(1) : rest
const parts = ablationParts(parseAblations(values.get('ablate') ?? ''), createLogger('warn'))
runServe(argv, process.env, parts).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`ablated-server: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  },
)
