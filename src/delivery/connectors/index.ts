import type { Connector, ConnectorKind } from './types.js';
import { pagerduty } from './pagerduty.js';
import { opsgenie } from './opsgenie.js';
import { servicenow } from './servicenow.js';
import { azureDevOps } from './azure-devops.js';
import { jsm } from './jsm.js';
import { teams } from './teams.js';
import { slack } from './slack.js';

/**
 * Registry of connectors by destination kind: IT-service-management tools (docs/connectors.md)
 * and chat (teams, slack: docs/notifications.md).
 * The delivery pipeline looks connectors up here; `webhook` is the pipeline's own format.
 */
export const connectors: Partial<Record<ConnectorKind, Connector>> = {
  pagerduty,
  opsgenie,
  servicenow,
  'azure-devops': azureDevOps,
  jsm,
  teams,
  slack,
};

export function getConnector(kind: string): Connector | undefined {
  return  Object.hasOwn(connectors, kind) ? connectors[kind as ConnectorKind] : undefined;
}
