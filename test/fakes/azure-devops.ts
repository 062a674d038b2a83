/**
 * Azure DevOps Work Item Tracking fake, validated against workItemTracking-7.1.json (operation,
 * required path/query parameters, body schema, the exact api-version each operation documents and
 * its `consumes` content type) plus the documented facts: System.Title ≤ 255 and required on
 * create, JSON-patch paths under /fields/, Basic auth with the PAT as password.
 *
 * Behaves like the service: Task states follow the chosen process (Basic, Agile, Scrum, CMMI); a
 * refused transition or a state outside the list answers 400 TF401320 RuleValidationException; a
 * wrong PAT answers 203 with an HTML sign-in page (or 401 when `badPatStatus = 401`); WIQL
 * `[System.Tags] CONTAINS '…'` finds work items by tag. The REST reference lists `team` as
 * optional for WIQL, so the project-level route (without {team}) is accepted too.
 */
import { FakeVendor, basicCredentials, contentTypeIs, type FakeReply, type RecordedRequest } from './fake-server.js';
import { loadAzureDevOps, matchOperation, validateOperation, type ApiDoc } from './spec.js';

export type Process = 'Basic' | 'Agile' | 'Scrum' | 'CMMI';

export const TASK_STATES: Record<Process, Array<{ name: string; category: string; color: string }>> = {
  Basic: [
    { name: 'To Do', category: 'Proposed', color: 'b2b2b2' },
    { name: 'Doing', category: 'InProgress', color: '007acc' },
    { name: 'Done', category: 'Completed', color: '339933' },
  ],
  Agile: [
    { name: 'New', category: 'Proposed', color: 'b2b2b2' },
    { name: 'Active', category: 'InProgress', color: '007acc' },
    { name: 'Closed', category: 'Completed', color: '339933' },
    { name: 'Removed', category: 'Removed', color: 'ffffff' },
  ],
  Scrum: [
    { name: 'To Do', category: 'Proposed', color: 'b2b2b2' },
    { name: 'In Progress', category: 'InProgress', color: '007acc' },
    { name: 'Done', category: 'Completed', color: '339933' },
    { name: 'Removed', category: 'Removed', color: 'ffffff' },
  ],
  CMMI: [
    { name: 'Proposed', category: 'Proposed', color: 'b2b2b2' },
    { name: 'Active', category: 'InProgress', color: '007acc' },
    { name: 'Resolved', category: 'Resolved', color: 'ff9d00' },
    { name: 'Closed', category: 'Completed', color: '339933' },
  ],
};

export interface AdoWorkItem {
  id: number;
  project: string;
  type: string;
  rev: number;
  fields: Record<string, unknown>;
  tags: string[];
  comments: string[];
}

const spec: ApiDoc = (() => {
  const doc = loadAzureDevOps();
  const wiql = Object.keys(doc.paths).find((p) => p.endsWith('/{team}/_apis/wit/wiql'));
  if (wiql) {
    const post = doc.paths[wiql]!.post!;
    const parameters = post.parameters.filter((p) => p.name !== 'team');
    doc.paths[wiql.replace('/{team}', '')] = { post: { ...post, parameters } };
  }
  return doc;
})();

export const SIGN_IN_PAGE = '<!DOCTYPE html><html><head><title>Azure DevOps Services | Sign In</title></head><body>Sign in to your account</body></html>';

function vssError(status: number, typeKey: string, message: string): FakeReply {
  return {
    status,
    body: { $id: '1', innerException: null, message, typeName: `Microsoft.TeamFoundation.WorkItemTracking.Server.${typeKey}, Microsoft.TeamFoundation.WorkItemTracking.Server`, typeKey, errorCode: 0, eventId: 3200 },
  };
}

export class AzureDevOpsFake extends FakeVendor {
  readonly workItems: AdoWorkItem[] = [];
  /** Service hook subscriptions created through `POST {org}/_apis/hooks/subscriptions`. */
  readonly hooks: Array<{ id: string; publisherInputs: Record<string, string>; consumerInputs: Record<string, string> }> = [];
  /** Refuse moves into the Completed category (a process rule), answering 400 TF401320. */
  refuseCompletion = false;
  badPatStatus: 203 | 401 = 203;
  private nextId = 1;

  constructor(readonly organization: string, readonly pat: string, public process: Process = 'Agile') {
    super();
  }

  /** organizationUrl for destinations pointing at this fake. */
  get organizationUrl(): string {
    return `${this.url}/${this.organization}`;
  }

  byTag(tag: string): AdoWorkItem[] {
    return this.workItems.filter((w) => w.tags.some((t) => t.toLowerCase() === tag.toLowerCase()));
  }

  protected violationReply(errors: string[]): FakeReply {
    return vssError(400, 'VssPropertyValidationException', errors.join('; '));
  }

  protected handle(r: RecordedRequest): FakeReply {
    const cred = basicCredentials(r);
    if (!cred) return { status: 401, headers: { 'www-authenticate': 'Basic realm="https://dev.azure.com/"' }, body: '' };
    if (cred.password !== this.pat) {
      return this.badPatStatus === 203 ? { status: 203, headers: { 'content-type': 'text/html; charset=utf-8' }, body: SIGN_IN_PAGE } : { status: 401, body: '' };
    }
    const hooks = this.hooksApi(r);
    if (hooks) return hooks;
    const m = matchOperation(spec, r.method, r.path);
    if (!m) return this.violate(r, [`no operation ${r.method} ${r.path}`]);
    if (m.pathParams.organization !== this.organization) return vssError(404, 'OrganizationNotFound', `TF400813: organization ${m.pathParams.organization} not found`);
    const errors: string[] = [];
    const consumes = m.operation.consumes as string[] | undefined;
    if (consumes && r.body !== '' && !consumes.some((c) => contentTypeIs(r, c))) errors.push(`Content-Type must be ${consumes.join(' or ')}`);
    if (r.body !== '' && r.json === undefined) errors.push('body is not JSON');
    errors.push(...validateOperation(spec, m, r.query, r.json));
    const op = m.operation.operationId as string;
    const patch = Array.isArray(r.json) ? (r.json as Array<{ op: string; path: string; value?: unknown }>) : [];
    if (op === 'Work Items_Create' || op === 'Work Items_Update') {
      for (const p of patch) if (typeof p.path !== 'string' || !p.path.startsWith('/fields/')) errors.push(`patch path ${p.path} is not a field`);
      const title = patch.find((p) => p.path === '/fields/System.Title')?.value;
      if (op === 'Work Items_Create' && (typeof title !== 'string' || title === '')) errors.push('System.Title: required');
      if (typeof title === 'string' && title.length > 255) errors.push('System.Title longer than 255');
    }
    if (errors.length) return this.violate(r, errors);
    const project = m.pathParams.project!;

    switch (op) {
      case 'Work Items_Create': {
        if (m.pathParams.type !== 'Task') return vssError(404, 'WorkItemTypeNotFoundException', `TF51535: Cannot find work item type ${m.pathParams.type}`);
        const states = TASK_STATES[this.process];
        const w: AdoWorkItem = { id: this.nextId++, project, type: 'Task', rev: 1, fields: { 'System.State': states[0]!.name, 'System.WorkItemType': 'Task', 'System.TeamProject': project }, tags: [], comments: [] };
        const refused = this.applyPatch(w, patch, true);
        if (refused) return refused;
        this.workItems.push(w);
        return { status: 200, body: this.view(w) };
      }
      case 'Work Items_Update': {
        const w = this.find(project, m.pathParams.id!);
        if (!w) return this.notFound(m.pathParams.id!);
        const refused = this.applyPatch(w, patch, false);
        if (refused) return refused;
        w.rev += 1;
        return { status: 200, body: this.view(w) };
      }
      case 'Comments_Add Comment': {
        const w = this.find(project, m.pathParams.workItemId!);
        if (!w) return this.notFound(m.pathParams.workItemId!);
        const text = (r.json as { text?: string }).text;
        if (typeof text !== 'string' || text === '') return this.violate(r, ['text: required']);
        w.comments.push(text);
        return { status: 200, body: { workItemId: w.id, commentId: w.comments.length, version: 1, text, isDeleted: false, createdDate: new Date().toISOString() } };
      }
      case 'Work Item Type States_List': {
        if (m.pathParams.type !== 'Task') return vssError(404, 'WorkItemTypeNotFoundException', `TF51535: Cannot find work item type ${m.pathParams.type}`);
        const value = TASK_STATES[this.process];
        return { status: 200, body: { count: value.length, value } };
      }
      case 'Wiql_Query By Wiql': {
        const query = String((r.json as { query?: string }).query ?? '');
        const tag = /\[System\.Tags\]\s+CONTAINS\s+'((?:[^']|'')*)'/i.exec(query)?.[1]?.replace(/''/g, "'");
        if (!/^\s*SELECT\s/i.test(query) || tag === undefined) return vssError(400, 'SyntaxException', 'TF51005: The query references a field or syntax the fake does not support');
        const items = this.byTag(tag).filter((w) => w.project === project);
        return {
          status: 200,
          body: {
            queryType: 'flat', queryResultType: 'workItem', asOf: new Date().toISOString(),
            columns: [{ referenceName: 'System.Id', name: 'ID', url: `${this.url}/_apis/wit/fields/System.Id` }],
            workItems: items.map((w) => ({ id: w.id, url: `${this.organizationUrl}/_apis/wit/workItems/${w.id}` })),
          },
        };
      }
      default:
        return vssError(404, 'NotImplemented', `fake does not implement ${op}`);
    }
  }

  /** The project's id (Core API `GET {org}/_apis/projects/{name}` answers it). */
  projectId(name: string): string {
    return `6ce954b1-ce1f-45d1-b94d-${Buffer.from(name).toString('hex').padEnd(12, '0').slice(0, 12)}`;
  }

  /**
   * Core `GET {org}/_apis/projects/{project}` and Service Hooks `POST {org}/_apis/hooks/subscriptions`
   * (serviceHooks 7.1: publisher `tfs`, consumer `webHooks` / `httpRequest`, a project id, an https
   * url, basic-auth inputs of 1–256 non-space characters); null for any other request.
   */
  private hooksApi(r: RecordedRequest): FakeReply | null {
    const prefix = `/${this.organization}/_apis/`;
    if (!r.path.startsWith(prefix)) return null;
    const rest = r.path.slice(prefix.length);
    const project = r.method === 'GET' ? /^projects\/([^/]+)$/.exec(rest) : null;
    if (!project && !(r.method === 'POST' && rest === 'hooks/subscriptions')) return null;
    if (r.query.get('api-version') !== '7.1') return this.violate(r, ['api-version=7.1 required']);
    if (project) {
      const name = decodeURIComponent(project[1]!);
      return { status: 200, body: { id: this.projectId(name), name, state: 'wellFormed', visibility: 'private' } };
    }
    const b = r.json as any;
    const errors: string[] = [];
    if (!contentTypeIs(r, 'application/json')) errors.push('Content-Type must be application/json');
    if (b?.publisherId !== 'tfs' || b?.consumerId !== 'webHooks' || b?.consumerActionId !== 'httpRequest') errors.push('publisherId tfs, consumerId webHooks, consumerActionId httpRequest');
    if (b?.eventType !== 'workitem.updated') errors.push('eventType workitem.updated');
    if (typeof b?.publisherInputs?.projectId !== 'string' || !b.publisherInputs.projectId.startsWith('6ce954b1-')) errors.push('publisherInputs.projectId: the id of a project of this organization');
    const ci = b?.consumerInputs ?? {};
    if (typeof ci.url !== 'string' || !ci.url.startsWith('https://')) errors.push('consumerInputs.url: an https url');
    for (const f of ['basicAuthUsername', 'basicAuthPassword']) if (ci[f] !== undefined && !/^\S{1,256}$/.test(ci[f])) errors.push(`consumerInputs.${f}: 1–256 non-space characters`);
    if (errors.length) return this.violate(r, errors);
    const id = `fd672255-8b6b-4769-9260-${String(this.hooks.length + 1).padStart(12, '0')}`;
    this.hooks.push({ id, publisherInputs: b.publisherInputs, consumerInputs: ci });
    return { status: 200, body: { id, url: `${this.organizationUrl}/_apis/hooks/subscriptions/${id}`, publisherId: 'tfs', eventType: b.eventType, resourceVersion: b.resourceVersion, consumerId: 'webHooks', consumerActionId: 'httpRequest', publisherInputs: { ...b.publisherInputs, tfsSubscriptionId: id }, consumerInputs: { url: ci.url } } };
  }

  private find(project: string, id: string): AdoWorkItem | undefined {
    return this.workItems.find((w) => String(w.id) === id && w.project === project);
  }

  private notFound(id: string): FakeReply {
    return vssError(404, 'WorkItemUnauthorizedAccessException', `TF401232: Work item ${id} does not exist, or you do not have permissions to read it.`);
  }

  /** Applies a JSON patch; returns the 400 rule error when the process refuses a state. */
  private applyPatch(w: AdoWorkItem, patch: Array<{ op: string; path: string; value?: unknown }>, creating: boolean): FakeReply | null {
    for (const p of patch) {
      const field = p.path.slice('/fields/'.length);
      if (field === 'System.State') {
        const state = TASK_STATES[this.process].find((s) => s.name === p.value);
        if (!state || (this.refuseCompletion && state.category === 'Completed') || creating) {
          return vssError(400, 'RuleValidationException', `TF401320: Rule Error for field State. Error code: Required, InvalidListValue, LimitedToValues, AllowsOldValue, InvalidEmpty.`);
        }
      }
    }
    for (const p of patch) {
      const field = p.path.slice('/fields/'.length);
      if (p.op === 'remove') delete w.fields[field];
      else w.fields[field] = p.value;
      if (field === 'System.Tags') w.tags = String(p.value).split(';').map((t) => t.trim()).filter(Boolean);
    }
    return null;
  }

  private view(w: AdoWorkItem): Record<string, unknown> {
    return { id: w.id, rev: w.rev, fields: { ...w.fields, 'System.Tags': w.tags.join('; ') }, url: `${this.organizationUrl}/${w.project}/_apis/wit/workItems/${w.id}` };
  }
}
