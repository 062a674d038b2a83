import type { Connector, ConnectorKind } from './types.js';

/**
 * Registry of IT-service-management connectors by destination kind (issue 4 fills it).
 * The delivery pipeline looks connectors up here; `webhook` is the pipeline's own format.
 */
export const connectors: Partial<Record<ConnectorKind, Connector>> = {};

export function getConnector(kind: string): Connector | undefined {
  return connectors[kind as ConnectorKind];
}
