// The history REST routes as a start sees them: their access and body here, their module (the
// history engine, ~19 files) imported on the first history request instead of at every start.
import { lazyRoutes, type RouteShape } from '../collab/rest/route-model.js'
import type { HistoryService } from './service.js'

export const HISTORY_ROUTE_SHAPE: RouteShape = {
  activity: { GET: { access: 'r' } },
  changeset: { GET: { access: 'r' } },
  rollback: { POST: { access: 'rw', body: true } },
}

/** `open`: the server's history service, built on first use. */
export const lazyHistoryRoutes = (open: () => Promise<HistoryService>) => lazyRoutes(HISTORY_ROUTE_SHAPE, async () => (await import('./routes.js')).historyRoutes(open))
