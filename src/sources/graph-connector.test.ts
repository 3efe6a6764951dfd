import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { GraphConnectorError, GraphSitesConnector } from './graph-connector.js'

let server: Server | undefined
afterEach(async () => {
  if (server) await new Promise((r) => server!.close(r))
  server = undefined
})

async function serve(body: (base: string) => unknown, status = 200): Promise<string> {
  let base = ''
  server = createServer((_req, res) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body(base))),
  )
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1.0`
  return base
}

describe('Graph sites connector', () => {
  it('maps sites and returns the nextLink as the cursor', async () => {
    const base = await serve((b) => ({
      value: [{ id: 's1', displayName: 'One', webUrl: 'https://x/1' }, { name: 'no id' }],
      '@odata.nextLink': `${b}/sites?$skiptoken=2`,
    }))
    const page = await new GraphSitesConnector({ baseUrl: base, accessToken: 't' }).listSites(
      null,
      new AbortController().signal,
    )
    expect(page).toEqual({
      sites: [{ id: 's1', name: 'One', webUrl: 'https://x/1' }],
      next: `${base}/sites?$skiptoken=2`,
    })
  })

  it('never follows a cursor to another origin with the bearer token', async () => {
    const base = await serve(() => ({ value: [] }))
    const c = new GraphSitesConnector({ baseUrl: base, accessToken: 't' })
    await expect(c.listSites('http://127.0.0.2:1/v1.0/sites', new AbortController().signal)).rejects.toBeInstanceOf(
      GraphConnectorError,
    )
  })

  it('fails on an error status other than throttling', async () => {
    const base = await serve(() => ({ error: { code: 'Forbidden' } }), 403)
    await expect(
      new GraphSitesConnector({ baseUrl: base, accessToken: 't' }).listSites(null, new AbortController().signal),
    ).rejects.toThrow('403')
  })
})
