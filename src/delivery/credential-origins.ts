/**
 * The table of the one rule for stored credentials (docs/access.md, "Where credentials may go"):
 * every field of the admin API that says where Vigia sends a request, the credential fields that
 * request carries, and the hosts the field may name. The rule itself (host table, DNS, the
 * credential asked again when an address moves) is applied by credential-rule.ts to every create
 * and change of a destination or a tenant connection; test/delivery/credential-origins.test.ts
 * fails when a URL-bearing field of the admin API's schemas is missing here.
 *
 * Hosts are the vendors' documented API hosts (vendor-specs/README.md, CONTRACT.md and the
 * vendors' pages cited below); an operator may add hosts of their own for all fields at once with
 * VIGIA_DESTINATION_ALLOWLIST (the tenant simulator, the tests' loopback fakes).
 */
import { pagerDutyBaseUrl, pagerDutyRestBaseUrl } from './connectors/pagerduty.js';
import { opsgenieBaseUrl } from './connectors/opsgenie.js';
import { JSM_DEFAULT_BASE_URL } from './connectors/jsm.js';
import { base, str } from './connectors/shared.js';
import type { DestinationKind } from './connectors/types.js';
import { SLACK_SHAPE, TEAMS_SHAPE } from './connectors/chat-urls.js';

/** Which hosts a field may name (https on the default port), besides the operator's allowlist. */
export interface HostRule {
  /** How the error text names them: "must be {label} (hosts…)". */
  label: string;
  /** Exact host names. */
  hosts?: readonly string[];
  /** Host suffixes (`.service-now.com`): any host ending with one, longer than it. */
  suffixes?: readonly string[];
  /** ServiceNow: a custom instance domain the organization allows (servicenow_instance_domains). */
  orgAllowance?: boolean;
}

export interface BoundUrlField {
  /** The field's path in the request body (`config.instanceUrl`, `endpoints.arm`). */
  field: string;
  /** The credential fields of the request body whose values (or tokens made with them) go to this address; [] when none. */
  credentials: readonly string[];
  /** null: any public host (the destination-safety rules alone), for a field that carries no credential. */
  hosts: HostRule | null;
  /** Where requests go when the body gives no value (a region's default host), or null for nowhere. */
  fallback?: (body: Record<string, unknown>) => string | null;
}

const configOf = (body: Record<string, unknown>) => (body.config ?? {}) as Record<string, unknown>;

/** PagerDuty: Events API v2 and REST API hosts, US and EU service regions (developer.pagerduty.com, vendor-specs/itsm-inbound §2). */
const PAGERDUTY_EVENTS: HostRule = { label: "one of PagerDuty's Events API hosts", hosts: ['events.pagerduty.com', 'events.eu.pagerduty.com'] };
const PAGERDUTY_REST: HostRule = { label: "one of PagerDuty's REST API hosts", hosts: ['api.pagerduty.com', 'api.eu.pagerduty.com'] };
/** Opsgenie Alert API, US and EU (docs.opsgenie.com "Alert API"). */
const OPSGENIE: HostRule = { label: "one of Opsgenie's API hosts", hosts: ['api.opsgenie.com', 'api.eu.opsgenie.com'] };
/** Jira Service Management Operations: one global API gateway for every region (developer.atlassian.com). */
const JSM: HostRule = { label: "Atlassian's API host", hosts: ['api.atlassian.com'] };
/** Azure DevOps Services: dev.azure.com/{organization}, or the older {organization}.visualstudio.com. */
const AZURE_DEVOPS: HostRule = { label: 'an Azure DevOps host', hosts: ['dev.azure.com'], suffixes: ['.visualstudio.com'] };
/** ServiceNow instances: {instance}.service-now.com, or a custom domain the organization allows. */
const SERVICENOW: HostRule = { label: 'a ServiceNow instance host', suffixes: ['.service-now.com'], orgAllowance: true };

/** Teams Workflows webhooks (vendor-specs chat-and-email §1.2): Power Platform environment hosts. */
const TEAMS: HostRule = { label: `a Teams Workflows webhook URL, ${TEAMS_SHAPE}`, suffixes: ['.environment.api.powerplatform.com'] };
/** Slack incoming webhooks (§2.1). */
const SLACK: HostRule = { label: `a Slack incoming-webhook URL, ${SLACK_SHAPE}`, hosts: ['hooks.slack.com'] };

/**
 * Kusto (Eventhouse / KQL database query URIs): Azure Data Explorer and Fabric, public cloud, US
 * Government and China (learn.microsoft.com, "Azure Data Explorer in sovereign clouds").
 */
export const KUSTO_HOST_SUFFIXES = ['.kusto.windows.net', '.kusto.fabric.microsoft.com', '.kusto.usgovcloudapi.net', '.kusto.chinacloudapi.cn'] as const;
const KUSTO: HostRule = { label: 'a Kusto host', suffixes: KUSTO_HOST_SUFFIXES };

/**
 * A tenant connection's endpoints: Microsoft's documented service endpoints of the national clouds.
 * - Entra ID authority ("National clouds", learn.microsoft.com/entra/identity-platform/authentication-national-cloud).
 * - Power BI REST (service-govus-overview, service-admin-21vianet): global, GCC, GCC High, DoD, China.
 * - Fabric REST: api.fabric.microsoft.com (no US Government or China host is documented).
 * - Azure Resource Manager (Azure Government and Azure China developer guides).
 */
export const MICROSOFT_CLOUD_HOSTS = {
  authorityHost: ['login.microsoftonline.com', 'login.microsoftonline.us', 'login.chinacloudapi.cn'],
  powerBi: ['api.powerbi.com', 'api.powerbigov.us', 'api.high.powerbigov.us', 'api.mil.powerbigov.us', 'api.powerbi.cn'],
  fabric: ['api.fabric.microsoft.com'],
  arm: ['management.azure.com', 'management.usgovcloudapi.net', 'management.chinacloudapi.cn'],
} as const;
const microsoft = (field: keyof typeof MICROSOFT_CLOUD_HOSTS): HostRule => ({ label: "one of Microsoft's hosts for it", hosts: MICROSOFT_CLOUD_HOSTS[field] });

/** The tenant's credentials: the client secret (or certificate assertion) to the authority, its tokens to the others. */
const TENANT_CREDENTIALS = ['credentials'] as const;

export type CredentialSubject = DestinationKind | 'tenant';

export const CREDENTIAL_ORIGINS: Readonly<Record<CredentialSubject, readonly BoundUrlField[]>> = {
  // A webhook carries no credential of the customer's (its signature is made with Vigia's own secret).
  webhook: [{ field: 'url', credentials: [], hosts: null }],
  pagerduty: [
    { field: 'config.apiBaseUrl', credentials: ['credentials.routingKey'], hosts: PAGERDUTY_EVENTS, fallback: (b) => pagerDutyBaseUrl(configOf(b)) },
    { field: 'config.restApiBaseUrl', credentials: ['credentials.restApiKey'], hosts: PAGERDUTY_REST, fallback: (b) => pagerDutyRestBaseUrl(configOf(b)) },
  ],
  opsgenie: [{ field: 'config.apiBaseUrl', credentials: ['credentials.apiKey'], hosts: OPSGENIE, fallback: (b) => opsgenieBaseUrl(configOf(b)) }],
  jsm: [{ field: 'config.apiBaseUrl', credentials: ['credentials.apiKey'], hosts: JSM, fallback: (b) => base(str(configOf(b), 'apiBaseUrl') ?? JSM_DEFAULT_BASE_URL) }],
  servicenow: [{ field: 'config.instanceUrl', credentials: ['credentials.username', 'credentials.password'], hosts: SERVICENOW }],
  'azure-devops': [{ field: 'config.organizationUrl', credentials: ['credentials.personalAccessToken'], hosts: AZURE_DEVOPS }],
  // No address of the customer's: mail goes to the instance's own relay (VIGIA_SMTP_URL).
  email: [],
  // The chat kinds' address is itself the credential (the URL authorizes the post): bound to the
  // vendor's hosts, resolved when it changes, never stored or shown whole.
  teams: [{ field: 'credentials.webhookUrl', credentials: [], hosts: TEAMS }],
  slack: [{ field: 'credentials.webhookUrl', credentials: [], hosts: SLACK }],
  tenant: [
    { field: 'endpoints.authorityHost', credentials: TENANT_CREDENTIALS, hosts: microsoft('authorityHost') },
    { field: 'endpoints.powerBi', credentials: TENANT_CREDENTIALS, hosts: microsoft('powerBi') },
    { field: 'endpoints.fabric', credentials: TENANT_CREDENTIALS, hosts: microsoft('fabric') },
    { field: 'endpoints.arm', credentials: TENANT_CREDENTIALS, hosts: microsoft('arm') },
    { field: 'utilization.eventhouse.queryUri', credentials: TENANT_CREDENTIALS, hosts: KUSTO },
  ],
};

/**
 * Fields of the admin API's schemas that hold an address but are not in the table, and why: the
 * enumeration test accepts these and nothing else.
 */
export const ADDRESSES_WITHOUT_CREDENTIALS: Readonly<Record<string, string>> = {
  'Alert.url': "the alert's page in Vigia's own console (answers only)",
  'AlertWithEvents.url': "the alert's page in Vigia's own console (answers only)",
  'InboundState.url': "Vigia's own inbound address a tool posts to (answers only)",
  'InboundSecret.url': "Vigia's own inbound address a tool posts to (answers only)",
  'ToolSubscription.url': "Vigia's own inbound address the tool's subscription posts to (answers only)",
  'Destination.slackRequestUrl': "Vigia's own inbound address a Slack app's buttons post to (answers only)",
  'CreatedDestination.slackRequestUrl': "Vigia's own inbound address a Slack app's buttons post to (answers only)",
  'TenantApiBudget.endpoint': 'the name of a platform endpoint capped per tenant (a label, not an address)',
};

/** The address fields of a destination kind ([] for a kind the table does not know). */
export function destinationAddressFields(kind: string): readonly BoundUrlField[] {
  return kind !== 'tenant' && Object.hasOwn(CREDENTIAL_ORIGINS, kind) ? CREDENTIAL_ORIGINS[kind as DestinationKind] : [];
}

/** The value at a dotted path of a body, or undefined. */
export function valueAt(body: Record<string, unknown>, path: string): unknown {
  let v: unknown = body;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}
