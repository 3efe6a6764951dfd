// `tandem mcp --api-url URL [--workspace ID]`: the MCP stdio bridge (src/mcp/bridge.ts). The API key
// comes from TANDEM_API_KEY, never a flag (a flag shows in every process listing).
import { takeFlags } from './args.js'

export async function runMcp(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, rest } = takeFlags(argv, ['api-url', 'workspace'])
  const problems: string[] = []
  const apiUrl = values.get('api-url') ?? env.TANDEM_API_URL
  if (!apiUrl || !/^https?:\/\//.test(apiUrl))
    problems.push('--api-url (or TANDEM_API_URL) is required: the api listener, e.g. http://127.0.0.1:8080')
  const apiKey = env.TANDEM_API_KEY
  if (!apiKey) problems.push('TANDEM_API_KEY is required in the environment')
  if (rest.length) problems.push(`unknown arguments: ${rest.join(' ')}`)
  if (problems.length) {
    process.stderr.write(problems.map((p) => `tandem mcp: ${p}\n`).join(''))
    return 2
  }
  const { runBridge } = await import('../mcp/bridge.js')
  await runBridge({
    apiUrl: apiUrl!,
    apiKey: apiKey!,
    workspace: values.get('workspace') ?? env.TANDEM_WORKSPACE,
    warn: (l) => process.stderr.write(`${l}\n`),
  })
  return 0
}
