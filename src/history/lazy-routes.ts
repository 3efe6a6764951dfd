// The history REST routes as a start sees them: declared (rest-schema.ts), their module (the
// history engine, ~19 files) imported on the first history request instead of at every start.
import { lazyRoutes } from '../collab/rest/route-model.js'
import { HISTORY_ROUTES } from './rest-schema.js'
import type { HistoryService } from './service.js'

/** `open`: the server's history service, built on first use. */
export const lazyHistoryRoutes = (open: () => Promise<HistoryService>) =>
  lazyRoutes(HISTORY_ROUTES, async () => (await import('./routes.js')).historyHandlers(open))
