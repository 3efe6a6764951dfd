// The content REST route as a start sees it: declared (rest-schema.ts), its module (the Markdown
// parser and printer, the fragment diff) imported on the first content request.
import { lazyRoutes } from '../collab/rest/route-model.js'
import type { HistoryService } from '../history/service.js'
import { CONTENT_ROUTES } from './rest-schema.js'
import type { ContentHooks } from './routes.js'

/** `open`: the server's history service (a write from an older base rebuilds the document at it). */
export const lazyContentRoutes = (open: () => Promise<HistoryService>, hooks?: ContentHooks) =>
  lazyRoutes(CONTENT_ROUTES, async () => (await import('./routes.js')).contentHandlers(open, hooks))
