// How a tool answers: its result as JSON text (and, for a tool that declares an output schema, the
// same object as structuredContent), or a refusal the agent reads (the endpoint's status and
// reason, `isError: true`), never a protocol error.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

const refused = (err: unknown): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: (err as Error).message }],
})

/** The answer as text only: for tools whose answer is the endpoint's own, of no fixed shape. */
export async function answer(run: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return { content: [{ type: 'text', text: JSON.stringify(await run(), null, 2) }] }
  } catch (err) {
    return refused(err)
  }
}

/** The answer as text and as structuredContent: for tools that declare an `outputSchema`. */
export async function structured(run: () => Promise<Record<string, unknown>>): Promise<CallToolResult> {
  try {
    const value = await run()
    return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value }
  } catch (err) {
    return refused(err)
  }
}
