// The content REST route as a start sees it: its access and body here, its module (the Markdown
// parser and printer, the fragment diff) imported on the first content request.
import { lazyRoutes, type RouteShape } from '../collab/rest/route-model.js'
import { PM_JSON_DEPTH } from './depth.js'
import type { HistoryService } from '../history/service.js'
import type { ContentHooks } from './routes.js'

const CONTENT_ROUTE_SHAPE: RouteShape = {
  content: { GET: { access: 'r' }, PATCH: { access: 'rw', body: true, jsonDepth: PM_JSON_DEPTH, agentsHeld: true } },
}

/** `open`: the server's history service (a write from an older base rebuilds the document at it). */
export const lazyContentRoutes = (open: () => Promise<HistoryService>, hooks?: ContentHooks) =>
  lazyRoutes(CONTENT_ROUTE_SHAPE, async () => (await import('./routes.js')).contentRoutes(open, hooks))
