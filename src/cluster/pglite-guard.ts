// PGlite database assets live in one node's data dir: another node cannot open them. In cluster
// mode creating one is refused (and opening one created before is refused the same way) with a
// message that says what to do instead.
import { AppError } from '../infra/errors.js'

export const PGLITE_IN_CLUSTER =
  "PGlite databases live in one node's data dir, so a cluster (--redis-url) cannot serve them: create database assets with provider postgres"

export function assertProviderAllowed(provider: string, clusterMode: boolean): void {
  if (clusterMode && provider === 'pglite') throw new AppError('bad_request', PGLITE_IN_CLUSTER)
}
