// The history REST routes as a start sees them: their access and body here, their module (the
// history engine, ~14 files) imported on the first history request instead of at every start.
import { lazyRoutes, type RouteShape } from '../collab/rest.js'

export const HISTORY_ROUTE_SHAPE: RouteShape = {
  activity: { GET: { access: 'r' } },
  changeset: { GET: { access: 'r' } },
  rollback: { POST: { access: 'rw', body: true } },
}

export const lazyHistoryRoutes = lazyRoutes(HISTORY_ROUTE_SHAPE, async () => (await import('./routes.js')).historyRoutes)
