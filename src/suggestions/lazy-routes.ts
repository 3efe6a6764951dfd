// The suggestion REST routes as a start sees them: their access and body here, their module (hunks,
// the content diff) imported on the first suggestion request; and the agents' routes composed: the
// content route holding writes as suggestions when asked, or as the workspace's registry says.
import { lazyRoutes, type RestRoutes, type RouteShape } from '../collab/rest/route-model.js'
import { lazyContentRoutes } from '../content/lazy-routes.js'
import type { ContentHooks } from '../content/routes.js'
import type { HistoryService } from '../history/service.js'
import type { SuggestionNotice } from './routes.js'
import type { SuggestionStore } from './store.js'

const SUGGESTION_ROUTE_SHAPE: RouteShape = {
  suggestions: {
    GET: { access: 'r', id: 'optional' },
    POST: { access: 'rw', body: true, id: 'optional', actions: ['accept', 'reject'], agentsWithdraw: true },
  },
}

const lazySuggestionRoutes = (store: SuggestionStore, open: () => Promise<HistoryService>, notify?: SuggestionNotice) =>
  lazyRoutes(SUGGESTION_ROUTE_SHAPE, async () => (await import('./routes.js')).suggestionRoutes(store, open, notify))

/** The content and suggestion routes, the first holding agents' writes through the second. */
export function agentRoutes(o: {
  suggestions: SuggestionStore
  openHistory: () => Promise<HistoryService>
  notify: SuggestionNotice
  /** the agents' policy (src/agents/): whether a content write is held */
  agents: ContentHooks['agents']
}): RestRoutes {
  const suggestionRoutes = lazySuggestionRoutes(o.suggestions, o.openHistory, o.notify)
  const hooks: ContentHooks = {
    suggest: (req, ctx) => suggestionRoutes.suggestions!.POST!.handle(req, ctx),
    agents: o.agents,
  }
  return { ...lazyContentRoutes(o.openHistory, hooks), ...suggestionRoutes }
}
