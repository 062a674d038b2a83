/**
 * Creates the Azure DevOps service hook (Web Hooks, `workitem.updated` on Tasks' State) that posts
 * to a destination's inbound address, with the destination's PAT. A fresh Vigia secret is made
 * for it (the previous ones keep their overlap) and given to the hook as basic auth's password;
 * it is never returned. The hook needs the project's id: read from the Core API by the
 * destination's project name.
 */
import type { AppContext } from '../context.js';
import { invalidInput } from '../errors.js';
import { base, basicAuth, parseJson, redact, str } from '../delivery/connectors/shared.js';
import type { Send } from '../delivery/connectors/types.js';
import { loadDestination } from '../delivery/destination-service.js';
import { createGuardedSend } from '../delivery/guarded-http.js';
import { enableInbound } from './endpoints.js';

const API = 'api-version=7.1';

export async function createAzureDevOpsHook(ctx: AppContext, orgId: string, destinationId: string): Promise<{ subscriptionId: string; url: string }> {
  const d = await loadDestination(ctx.db, orgId, destinationId);
  if (d.kind !== 'azure-devops') throw invalidInput('only an azure-devops destination has an Azure DevOps service hook');
  const credentials = d.credentials_sealed ? ctx.sealer.openJson<Record<string, string>>(d.credentials_sealed) : {};
  const org = base(str(d.config, 'organizationUrl') ?? '');
  const headers = { authorization: basicAuth('', credentials.personalAccessToken ?? ''), accept: 'application/json', 'content-type': 'application/json' };
  const send = createGuardedSend(ctx);
  try {
    const project = await call(send, credentials, { method: 'GET', url: `${org}/_apis/projects/${encodeURIComponent(str(d.config, 'project') ?? '')}?${API}`, headers });
    const projectId = (project as { id?: unknown }).id;
    if (typeof projectId !== 'string') throw invalidInput('Azure DevOps did not return the project id');
    const { url, secret } = await enableInbound(ctx, orgId, destinationId);
    const hook = await call(send, { ...credentials, secret }, {
      method: 'POST',
      url: `${org}/_apis/hooks/subscriptions?${API}`,
      headers,
      body: JSON.stringify({
        publisherId: 'tfs',
        eventType: 'workitem.updated',
        resourceVersion: '1.0',
        consumerId: 'webHooks',
        consumerActionId: 'httpRequest',
        publisherInputs: { projectId, workItemType: 'Task', changedFields: 'System.State' },
        consumerInputs: { url, basicAuthUsername: 'vigia', basicAuthPassword: secret, resourceDetailsToSend: '', messagesToSend: 'none', detailedMessagesToSend: 'none' },
      }),
    });
    const id = (hook as { id?: unknown }).id;
    if (typeof id !== 'string') throw invalidInput('Azure DevOps did not return the subscription id');
    return { subscriptionId: id, url };
  } finally {
    await send.close().catch(() => undefined);
  }
}

/** One call; a failure becomes a 400 naming what Azure DevOps answered (credentials redacted). */
async function call(send: Send, secrets: Record<string, string>, request: Parameters<Send>[0]): Promise<unknown> {
  let res: Awaited<ReturnType<Send>>;
  try {
    res = await send(request);
  } catch {
    throw invalidInput('Azure DevOps could not be reached to create the service hook; try again');
  }
  const json = parseJson(res.body);
  if (res.statusCode !== 200 || json === undefined) {
    throw invalidInput(redact(`Azure DevOps did not create the service hook (HTTP ${res.statusCode}): ${res.body.slice(0, 300)}`, secrets));
  }
  return json;
}
