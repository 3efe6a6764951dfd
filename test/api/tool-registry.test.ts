// Tool registry endpoints (spec 4.4, 4.5): roles, partial idempotent PATCH, base tools, unknown
// tools, sorted overrides, concurrent PATCHes, and a persisted policy the catalog no longer admits.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { BACKENDS } from '../helpers/backends.js'
import { startTandem, type Harness } from '../helpers/tandem.js'
import { call, makeWorld, ROLES } from './helpers.js'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const path = (ws: string) => `/api/v0/workspaces/${ws}/tool-registry`

describe.each(BACKENDS)('tool registry ($name)', (backend) => {
  it('answers owners and admins, refuses members and strangers with 403 on GET and PATCH', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'roles')
    for (const role of ROLES) {
      const get = await call(h, 'GET', path(w.workspaceId), { key: w.keys[role] })
      const patch = await call(h, 'PATCH', path(w.workspaceId), {
        key: w.keys[role],
        body: { default_visibility: 'hidden' },
      })
      const allowed = role === 'owner' || role === 'admin'
      expect([role, get.status, patch.status]).toEqual([role, allowed ? 200 : 403, allowed ? 200 : 403])
      if (!allowed) expect(get.body).toEqual({ detail: expect.any(String) })
    }
  })

  it('is 404 for an unknown workspace', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'nows')
    expect((await call(h, 'GET', path('no-such-ws'), { key: w.keys.owner })).status).toBe(404)
    const patch = await call(h, 'PATCH', path('no-such-ws'), { key: w.keys.owner, body: {} })
    expect(patch).toMatchObject({ status: 404, body: { detail: 'Workspace not found' } })
  })

  it('answers an over-long workspace id with a 422 on GET and PATCH', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'long')
    const id = 'w'.repeat(201)
    for (const method of ['GET', 'PATCH']) {
      const r = await call(h, method, path(id), { key: w.keys.owner, ...(method === 'PATCH' ? { body: {} } : {}) })
      expect(r.status).toBe(422)
      expect(r.body).toEqual({
        detail: [
          {
            type: 'string_too_long',
            loc: ['path', 'workspace_id'],
            msg: 'String should have at most 200 characters',
            input: id,
            ctx: { max_length: 200 },
          },
        ],
      })
    }
  })

  it('starts visible with no overrides and applies partial updates idempotently, tools sorted by id', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'partial')
    const key = w.keys.admin
    expect((await call(h, 'GET', path(w.workspaceId), { key })).body).toEqual({
      workspace_id: w.workspaceId,
      default_visibility: 'visible',
      tools: [],
    })

    await call(h, 'PATCH', path(w.workspaceId), { key, body: { tool: { tool_id: 'web_browse', enabled: false } } })
    await call(h, 'PATCH', path(w.workspaceId), {
      key,
      body: { tool: { tool_id: 'code_interpreter', approval_mode: 'required_with_override' } },
    })
    const once = await call(h, 'PATCH', path(w.workspaceId), {
      key,
      body: { default_visibility: 'hidden', tool: { tool_id: 'web_browse', approval_mode: 'required_no_override' } },
    })
    const twice = await call(h, 'PATCH', path(w.workspaceId), {
      key,
      body: { default_visibility: 'hidden', tool: { tool_id: 'web_browse', approval_mode: 'required_no_override' } },
    })
    const expected = {
      workspace_id: w.workspaceId,
      default_visibility: 'hidden',
      tools: [
        { tool_id: 'code_interpreter', enabled: true, approval_mode: 'required_with_override' },
        { tool_id: 'web_browse', enabled: false, approval_mode: 'required_no_override' },
      ],
    }
    expect(once).toMatchObject({ status: 200, body: expected })
    expect(twice.body).toEqual(expected)
    // null and absent fields leave the stored policy alone
    const noop = await call(h, 'PATCH', path(w.workspaceId), { key, body: { default_visibility: null, tool: null } })
    expect(noop.body).toEqual(expected)
    expect((await call(h, 'GET', path(w.workspaceId), { key })).body).toEqual(expected)
  })

  it('refuses to disable a base tool and to name an unknown tool with 400, storing nothing', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'base')
    const key = w.keys.owner
    const base = await call(h, 'PATCH', path(w.workspaceId), {
      key,
      body: { default_visibility: 'hidden', tool: { tool_id: 'search', enabled: false } },
    })
    expect(base).toMatchObject({ status: 400, body: { detail: expect.stringContaining('base tool') } })
    const unknown = await call(h, 'PATCH', path(w.workspaceId), {
      key,
      body: { tool: { tool_id: 'teleport', enabled: true } },
    })
    expect(unknown).toMatchObject({ status: 400, body: { detail: expect.stringContaining('unknown tool') } })
    // a base tool may still be given an approval mode
    const ok = await call(h, 'PATCH', path(w.workspaceId), {
      key,
      body: { tool: { tool_id: 'search', approval_mode: 'required_with_override' } },
    })
    expect(ok.body.tools).toEqual([{ tool_id: 'search', enabled: true, approval_mode: 'required_with_override' }])
    expect((await call(h, 'GET', path(w.workspaceId), { key })).body.default_visibility).toBe('visible')
  })

  it('never loses one of many concurrent PATCHes', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'race')
    const tools = ['code_interpreter', 'database_query', 'email_send', 'image_generation', 'web_browse']
    const modes = ['no_approval', 'required_with_override', 'required_no_override'] as const
    await Promise.all(
      tools.flatMap((tool_id, i) => [
        call(h!, 'PATCH', path(w.workspaceId), { key: w.keys.owner, body: { tool: { tool_id, enabled: false } } }),
        call(h!, 'PATCH', path(w.workspaceId), {
          key: w.keys.admin,
          body: { tool: { tool_id, approval_mode: modes[i % 3] } },
        }),
      ]),
    )
    const got = await call(h, 'GET', path(w.workspaceId), { key: w.keys.owner })
    expect(got.body.tools).toEqual(
      tools.map((tool_id, i) => ({ tool_id, enabled: false, approval_mode: modes[i % 3] })),
    )
  })

  it('answers 400 on GET when the persisted policy breaks the current catalog, and a PATCH repairs it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tandem-api-'))
    try {
      const storage = await backend.overrides()
      h = await startTandem(storage, {}, dir)
      const w = await makeWorld(h, 'invalid')
      await call(h, 'PATCH', path(w.workspaceId), {
        key: w.keys.owner,
        body: { tool: { tool_id: 'web_browse', enabled: false } },
      })
      await h.close()
      // web_browse becomes a base tool: the stored "disabled" override is now invalid
      const catalog = join(dir, 'catalog.json')
      await writeFile(
        catalog,
        JSON.stringify({
          tools: [
            { tool_id: 'search', base: true },
            { tool_id: 'web_browse', base: true },
          ],
        }),
      )
      h = await startTandem({ ...storage, toolCatalogFile: catalog }, {}, dir)
      const got = await call(h, 'GET', path(w.workspaceId), { key: w.keys.owner })
      expect(got).toMatchObject({
        status: 400,
        body: { detail: expect.stringContaining('persisted tool registry configuration is invalid') },
      })
      await call(h, 'PATCH', path(w.workspaceId), {
        key: w.keys.owner,
        body: { tool: { tool_id: 'web_browse', enabled: true } },
      })
      expect((await call(h, 'GET', path(w.workspaceId), { key: w.keys.owner })).status).toBe(200)
      await h.close()
      h = undefined
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
