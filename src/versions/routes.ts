// /versions/v1/{org}/{doc_id}[/{id}]: named versions of a document. POST takes the document as it
// is now (every update applied so far durable first), stores its full state, and answers 201 once
// the version is durable. GET lists (newest first) or reads one; PATCH renames under an
// optimistic check on updated_at_ms (409 with the current record); DELETE removes.
import { randomBytes } from 'node:crypto'
import * as Y from 'yjs'
import { bindRoutes, type RestRequest, type RestResponse, type RestRoutes } from '../collab/rest/route-model.js'
import { AppError } from '../infra/errors.js'
import { docIdOf } from '../storage/doc-store.js'
import { MAX_VERSIONS_PER_DOC, VERSION_ID, type VersionRecord } from './record.js'
import { VERSION_ROUTES } from './rest-schema.js'
import type { VersionStore } from './store.js'

const docIdOfReq = (req: RestRequest) => docIdOf(req.org, req.doc, req.cap.branch)

/** The id of the path; an id this server never mints names no version. */
function idOf(req: RestRequest): string {
  if (!req.id || !VERSION_ID.test(req.id)) throw new AppError('not_found', 'no such version')
  return req.id
}

async function existing(versions: VersionStore, req: RestRequest): Promise<VersionRecord> {
  const record = await versions.get(docIdOfReq(req), idOf(req))
  if (!record) throw new AppError('not_found', 'no such version')
  return record
}

/** Told of every version once it is durable, before the 201 (the version.created webhook). */
export type VersionCreated = (req: RestRequest, record: VersionRecord) => Promise<void>

export function versionRoutes(versions: VersionStore, created: VersionCreated = async () => {}): RestRoutes {
  return bindRoutes(VERSION_ROUTES, {
    versions: {
      async POST(req, { registry, store, now }, { body: { name } }): Promise<RestResponse> {
        if ((await versions.list(docIdOfReq(req))).length >= MAX_VERSIONS_PER_DOC) {
          throw new AppError(
            'conflict',
            `a document keeps at most ${MAX_VERSIONS_PER_DOC} named versions: delete one first`,
          )
        }
        // The room (loaded here if it is not) holds the current state; flushed first, the state
        // holds nothing a crash could still lose.
        const { room, release } = await registry.acquire(
          { org: req.org, doc: req.doc, branch: req.cap.branch },
          req.cap.sub,
        )
        let state: Uint8Array
        let seq: number
        try {
          await room.flushed()
          const reading = room.readState() // takes the state now, merges it beside the room
          seq = room.headSeq
          state = await reading
        } finally {
          release()
        }
        // Cluster mode: another node's commits may not have reached this room over the bus yet;
        // whatever is durable after the room's head goes in too (nothing on a single node).
        const missed: Uint8Array[] = []
        for await (const u of store.readLog(docIdOfReq(req), seq + 1)) {
          missed.push(u.update)
          seq = u.seq
        }
        if (missed.length) state = Y.mergeUpdates([state, ...missed])
        const at = now()
        const record: VersionRecord = {
          id: randomBytes(16).toString('base64url'),
          name,
          seq,
          created_at_ms: at,
          updated_at_ms: at,
          by: req.cap.sub,
        }
        await versions.create(docIdOfReq(req), record, state)
        await created(req, record)
        return { status: 201, json: record }
      },
      async GET(req): Promise<RestResponse> {
        if (req.id === null) return { status: 200, json: { versions: await versions.list(docIdOfReq(req)) } }
        const record = await existing(versions, req)
        const state = await versions.state(docIdOfReq(req), record.id)
        if (!state) throw new AppError('not_found', 'no such version') // removed meanwhile
        if (req.accept.includes('application/octet-stream')) return { status: 200, bytes: state }
        return { status: 200, json: { version: record, doc: Buffer.from(state).toString('base64') } }
      },
      async PATCH(req, { now }, { body }): Promise<RestResponse> {
        const result = await versions.rename(docIdOfReq(req), idOf(req), body.name, body.updated_at_ms, now())
        if (!result) throw new AppError('not_found', 'no such version')
        if (!result.ok) {
          return {
            status: 409,
            json: {
              error: 'the version changed since updated_at_ms; current record attached',
              code: 'conflict',
              version: result.current,
            },
          }
        }
        return { status: 200, json: result.record }
      },
      async DELETE(req): Promise<RestResponse> {
        if (!(await versions.remove(docIdOfReq(req), idOf(req)))) throw new AppError('not_found', 'no such version')
        return { status: 204 }
      },
    },
  })
}
