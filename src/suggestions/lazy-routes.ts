// The suggestion REST routes as a start sees them: their access and body here, their module (hunks,
// the content diff) imported on the first suggestion request.
import { lazyRoutes, type RouteShape } from '../collab/rest.js'
import type { HistoryService } from '../history/service.js'
import type { SuggestionNotice } from './routes.js'
import type { SuggestionStore } from './store.js'

const SUGGESTION_ROUTE_SHAPE: RouteShape = {
  suggestions: {
    GET: { access: 'r', id: 'optional' },
    POST: { access: 'rw', body: true, id: 'optional', actions: ['accept', 'reject'] },
  },
}

export const lazySuggestionRoutes = (store: SuggestionStore, open: () => Promise<HistoryService>, notify?: SuggestionNotice) =>
  lazyRoutes(SUGGESTION_ROUTE_SHAPE, async () => (await import('./routes.js')).suggestionRoutes(store, open, notify))
