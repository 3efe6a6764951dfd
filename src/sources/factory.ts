// Which connector a source's spec names.
import type { ConnectorFactory } from './connector.js'
import { GraphSitesConnector } from './graph-connector.js'
import { JsonFileSitesConnector } from './json-file-connector.js'

export const defaultConnectorFactory: ConnectorFactory = (spec) =>
  spec.kind === 'graph' ? new GraphSitesConnector(spec) : new JsonFileSitesConnector(spec)
