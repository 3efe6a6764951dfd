// Every /api/v0 route module, mounted in this order. A resource adds itself with one line.
import type { ApiContext } from '../context.js'
import type { RouteDef } from '../route.js'
import { assetContentRoutes } from './asset-content/routes.js'
import { assetLifecycleRoutes } from './assets/routes.js'
import { collabTokenRoutes } from './collab-token/routes.js'
import { commentRoutes } from './comments/routes.js'
import { databaseRoutes } from './databases/routes.js'
import { directoryRoutes } from './directory/routes.js'
import { searchRoutes } from './search/routes.js'
import { sourcesRoutes } from './sources/routes.js'
import { toolRegistryRoutes } from './tool-registry/routes.js'
import { webhookRoutes } from './webhooks/routes.js'

export type RouteModule = (api: ApiContext) => RouteDef[]

export const V0_ROUTES: RouteModule[] = [
  toolRegistryRoutes,
  collabTokenRoutes,
  assetContentRoutes,
  commentRoutes,
  sourcesRoutes,
  databaseRoutes,
  directoryRoutes,
  assetLifecycleRoutes,
  webhookRoutes,
  searchRoutes,
]
