/**
 * Azure DevOps Boards (docs/connectors.md): the opening creates a Task tagged `Vigia` and
 * `vigia-alert-{alertId}` and stores {workItemId}; acknowledged and escalated add a comment;
 * recovered moves the Task to the state of its type's `Completed` category and adds a comment
 * (state first, see follow()) (discovered through the work-item-type states API, cached per project because the
 * process rarely changes). If the process refuses the transition (400 TF401320 /
 * RuleValidationException) only the comment stays and the delivery counts as succeeded.
 *
 * Duplicate safety (a retried create must not open a second Task): when a create's outcome is unknown, or the opening is sent again,
 * the Task is first searched by its alert tag with WIQL and reused. The same search serves a later
 * event without a stored reference; if nothing is found that event is abandoned.
 *
 * Quirk: a bad or expired PAT may get 203 with an HTML sign-in page instead of 401 — abandoned.
 */
import type { Connector, ConnectorDelivery, ConnectorResult, OutboundResponse, Send } from './types.js';
import { texts } from './texts.js';
import { base, basicAuth, checkHttpsUrl, failure, isHtml, parseJson, requireString, str, truncate } from './shared.js';

const API = 'api-version=7.1';
const COMMENTS_API = 'api-version=7.1-preview.4';
const TITLE_MAX = 255;
const VENDOR = 'Azure DevOps';

/** Completed-category state of the Task type, per organization URL + project (process-wide). */
const completedStateCache = new Map<string, string | null>();

/** For tests: forget discovered states (a fake may switch its process between tests). */
export function clearAzureDevOpsStateCache(): void {
  completedStateCache.clear();
}

export function alertTag(alertId: string): string {
  return `vigia-alert-${alertId}`;
}

function projectUrl(d: ConnectorDelivery): string {
  return `${base(str(d.destination.config, 'organizationUrl') ?? '')}/${encodeURIComponent(str(d.destination.config, 'project') ?? '')}`;
}

function headers(d: ConnectorDelivery, contentType = 'application/json'): Record<string, string> {
  return {
    authorization: basicAuth('', d.destination.credentials.personalAccessToken ?? ''),
    accept: 'application/json',
    'content-type': contentType,
  };
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Description and comments are HTML fields in Azure DevOps: escape, keep line breaks. */
function html(text: string): string {
  return escapeHtml(text).replace(/\n/g, '<br>');
}

const BAD_PAT = 'Azure DevOps answered 203 with a sign-in page: the personal access token is invalid, expired or lacks access';

/** Any non-success answer, with the bad-PAT sign-in page told apart from a real success. */
function notOk(d: ConnectorDelivery, res: OutboundResponse): ConnectorResult | null {
  if (res.statusCode === 203 || (res.statusCode >= 200 && res.statusCode < 300 && isHtml(res))) {
    return { outcome: 'abandon', statusCode: res.statusCode, error: BAD_PAT };
  }
  if (res.statusCode >= 200 && res.statusCode < 300) return null;
  return failure(VENDOR, res, d.destination.credentials);
}

type Lookup = { found: number | null } | { result: ConnectorResult };

async function findByTag(d: ConnectorDelivery, send: Send): Promise<Lookup> {
  const tag = alertTag(d.body.alert.id).replace(/'/g, "''");
  const query = `SELECT [System.Id] FROM WorkItems WHERE [System.TeamProject] = @project AND [System.Tags] CONTAINS '${tag}' ORDER BY [System.Id]`;
  const res = await send({ method: 'POST', url: `${projectUrl(d)}/_apis/wit/wiql?${API}`, headers: headers(d), body: JSON.stringify({ query }) });
  const bad = notOk(d, res);
  if (bad) return { result: bad };
  const items = (parseJson(res.body) as { workItems?: Array<{ id?: number }> } | undefined)?.workItems;
  const id = Array.isArray(items) ? items.find((w) => typeof w.id === 'number')?.id : undefined;
  return { found: id ?? null };
}

async function open(d: ConnectorDelivery, send: Send): Promise<ConnectorResult> {
  if (d.previousOutcomeUnknown || d.ref) {
    const lookup = await findByTag(d, send);
    if ('result' in lookup) return lookup.result;
    if (lookup.found !== null) return { outcome: 'succeeded', statusCode: 200, ref: { workItemId: lookup.found }, note: 'existing work item reused' };
  }
  const a = d.body.alert;
  const test = d.body.test === true;
  const patch = [
    { op: 'add', path: '/fields/System.Title', value: truncate(texts.title(a, test), TITLE_MAX) },
    { op: 'add', path: '/fields/System.Description', value: html(texts.description(a, test)) },
    { op: 'add', path: '/fields/System.Tags', value: `Vigia; ${alertTag(a.id)}` },
  ];
  const res = await send({
    method: 'POST',
    url: `${projectUrl(d)}/_apis/wit/workitems/$Task?${API}`,
    headers: headers(d, 'application/json-patch+json'),
    body: JSON.stringify(patch),
  });
  const bad = notOk(d, res);
  if (bad) return bad;
  const id = (parseJson(res.body) as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'number') return { outcome: 'retry', statusCode: res.statusCode, error: 'Azure DevOps answered without a work item id' };
  return { outcome: 'succeeded', statusCode: res.statusCode, ref: { workItemId: id } };
}

async function comment(d: ConnectorDelivery, send: Send, id: number, text: string): Promise<ConnectorResult | null> {
  const res = await send({
    method: 'POST',
    url: `${projectUrl(d)}/_apis/wit/workItems/${id}/comments?${COMMENTS_API}`,
    headers: headers(d),
    body: JSON.stringify({ text: html(text) }),
  });
  return notOk(d, res);
}

/** The Task type's state in the `Completed` category (Done, Closed…), or null if it has none. */
async function completedState(d: ConnectorDelivery, send: Send): Promise<{ state: string | null } | { result: ConnectorResult }> {
  const key = `${base(str(d.destination.config, 'organizationUrl') ?? '')}|${str(d.destination.config, 'project')}`;
  if (completedStateCache.has(key)) return { state: completedStateCache.get(key)! };
  const res = await send({ method: 'GET', url: `${projectUrl(d)}/_apis/wit/workitemtypes/Task/states?${API}`, headers: headers(d) });
  const bad = notOk(d, res);
  if (bad) return { result: bad };
  const states = (parseJson(res.body) as { value?: Array<{ name?: string; category?: string }> } | undefined)?.value;
  if (!Array.isArray(states)) return { result: { outcome: 'retry', statusCode: res.statusCode, error: 'Azure DevOps answered an unreadable list of states' } };
  const state = states.find((s) => s.category === 'Completed')?.name ?? null;
  completedStateCache.set(key, state);
  return { state };
}

function isRuleError(res: OutboundResponse): boolean {
  return res.statusCode === 400 && /TF401320|RuleValidationException/.test(res.body);
}

async function follow(d: ConnectorDelivery, send: Send): Promise<ConnectorResult> {
  const a = d.body.alert;
  let id = typeof d.ref?.workItemId === 'number' ? d.ref.workItemId : null;
  let found = false;
  if (id === null) {
    const lookup = await findByTag(d, send);
    if ('result' in lookup) return lookup.result;
    if (lookup.found === null) {
      return { outcome: 'abandon', error: 'No Azure DevOps work item exists for this alert (its opening was not delivered to this destination), so there is nothing to update' };
    }
    id = lookup.found;
    found = true;
  }
  const refOut = found ? { ref: { workItemId: id } } : {};
  if (d.body.event !== 'alert.recovered') {
    const text = d.body.event === 'alert.acknowledged' ? texts.acknowledged(a) : texts.escalated(a);
    return (await comment(d, send, id, text)) ?? { outcome: 'succeeded', statusCode: 200, ...refOut };
  }

  // Recovered: the state move first, the comment last. Setting the same state again is harmless,
  // so a retry after a failed move or a failed comment never repeats a comment that was added
  // (only a comment call whose own outcome is unknown can be repeated).
  const discovered = await completedState(d, send);
  if ('result' in discovered) return discovered.result;
  let note: string | undefined;
  let statusCode = 200;
  if (discovered.state === null) note = 'Task type has no Completed state; comment only';
  else {
    const res = await send({
      method: 'PATCH',
      url: `${projectUrl(d)}/_apis/wit/workitems/${id}?${API}`,
      headers: headers(d, 'application/json-patch+json'),
      body: JSON.stringify([{ op: 'add', path: '/fields/System.State', value: discovered.state }]),
    });
    statusCode = res.statusCode;
    if (isRuleError(res)) note = `process refused the move to "${discovered.state}"; comment only`;
    else {
      const bad = notOk(d, res);
      if (bad) return bad;
    }
  }
  const commented = await comment(d, send, id, texts.recovered(a));
  if (commented) return commented;
  return { outcome: 'succeeded', statusCode, ...(note ? { note } : {}), ...refOut };
}

export const azureDevOps: Connector = {
  kind: 'azure-devops',
  configFields: ['organizationUrl', 'project'],

  validate(config, credentials) {
    const e = checkHttpsUrl(config.organizationUrl, 'config.organizationUrl');
    if (e) return e;
    if (typeof config.project !== 'string' || config.project.trim() === '') return 'config.project is required';
    return requireString(credentials, 'personalAccessToken', 'credentials.personalAccessToken');
  },

  urlFields() {
    return ['organizationUrl'];
  },

  deliver(d, send) {
    return d.body.event === 'alert.opened' ? open(d, send) : follow(d, send);
  },
};
