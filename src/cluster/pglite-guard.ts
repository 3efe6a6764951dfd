// PGlite database assets live in one node's data dir: another node cannot open them. In cluster
// mode creating one is refused (and opening one created before is refused the same way) with a
// message that says what to do instead: new assets go to Tandem's PostgreSQL by default
// (src/database-assets/create.ts), existing ones move there with `tandem migrate`.
import { AppError } from '../infra/errors.js'

export const PGLITE_IN_CLUSTER =
  "PGlite databases live in one node's data dir, so a cluster (--redis-url) cannot serve them: create database assets without --provider " +
  "(they get a database of their own on --postgres-url's server), and move a data dir's PGlite assets there with " +
  '`tandem migrate --from-data-dir DIR --postgres-url URL` (the server stopped)'

export function assertProviderAllowed(provider: string, clusterMode: boolean): void {
  if (clusterMode && provider === 'pglite') throw new AppError('bad_request', PGLITE_IN_CLUSTER)
}
