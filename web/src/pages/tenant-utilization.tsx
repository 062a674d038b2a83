import { useState } from 'preact/hooks';
import type { components } from '../admin-api.gen.js';
import type { Tenant } from '../api.js';
import { useConsole } from '../app-context.js';
import { Notice, useAction, useFieldErrors } from '../components.js';
import { ActionForm, TextField, useFormValues } from '../forms.js';
import type { Translate } from '../i18n.js';
import { WorkspacePicker } from './workspace-picker.js';

type Utilization = Tenant['utilization'];

/** The server's limits (src/monitoring/utilization-settings.ts), checked here first so errors are said in the console's words. */
const MAX_RECOVER_WINDOWS = 240;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ARM_SCOPE = /^\/subscriptions\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\/resourceGroups\/[-\w.()]{1,90})?$/i;
const KUSTO_NAME = /^[\w .-]{1,1024}$/;

export type UlField = 'queryUri' | 'clientSecret' | 'database' | 'table' | 'workspaceId' | 'datasetId' | 'armScopes' | 'warnPercent' | 'recoverWindows' | 'overrides';
export type UlForm = Record<UlField, string>;

const lines = (s: string) =>
  s
    .split(/\r?\n/)
    .map((x) => x.trim())
    .filter(Boolean);

export function formOf(u: Utilization): UlForm {
  return {
    queryUri: u.eventhouse?.queryUri ?? '',
    clientSecret: '',
    database: u.eventhouse?.database ?? '',
    table: u.eventhouse?.table ?? '',
    workspaceId: u.metricsApp?.workspaceId ?? '',
    datasetId: u.metricsApp?.datasetId ?? '',
    armScopes: u.armScopes.join('\n'),
    warnPercent: String(u.warnPercent),
    recoverWindows: String(u.recoverWindows),
    overrides: Object.entries(u.overrides)
      .map(([name, o]) => `${name}; ${o.warnPercent ?? ''}; ${o.recoverWindows ?? ''}`)
      .join('\n'),
  };
}

const whole = (s: string) => (/^\d+$/.test(s.trim()) ? Number(s.trim()) : Number.NaN);

/** The origin of a query URI as the server stores it (or the text when it is not a URL). */
const originOf = (uri: string) => (URL.canParse(uri) ? new URL(uri).origin : uri);

/**
 * The PATCH body (`utilization`, and `credentials` when the client secret is given), or the
 * refused fields in the viewer's language. A source is either fully given or fully empty (empty
 * removes it). Setting or changing the query URI needs the client secret again: the URI receives
 * the connection's tokens (docs/access.md, "Where credentials may go").
 */
export function parseForm(t: Translate, f: UlForm, storedQueryUri: string | null = null): { body?: Record<string, unknown>; errors: Partial<Record<UlField, string>> } {
  const errors: Partial<Record<UlField, string>> = {};
  const labelOf = { queryUri: t('ulQueryUri'), database: t('ulDatabase'), table: t('ulTable'), workspaceId: t('ulWorkspaceId'), datasetId: t('ulDatasetId') };
  const group = (keys: Array<keyof typeof labelOf>) => {
    const given = keys.filter((k) => f[k].trim() !== '');
    if (given.length > 0 && given.length < keys.length) {
      const missing = keys.find((k) => f[k].trim() === '')!;
      errors[missing] = t('ulNeedAll', { fields: keys.map((k) => labelOf[k]).join(', ') });
    }
    return given.length === keys.length;
  };
  let eventhouse: Record<string, string> | null = null;
  if (group(['queryUri', 'database', 'table'])) {
    let ok = false;
    try {
      const u = new URL(f.queryUri.trim());
      ok = u.protocol === 'https:' && (u.pathname === '/' || u.pathname === '') && !u.search && !u.hash;
    } catch {
      ok = false;
    }
    if (!ok) errors.queryUri = t('ulHttps');
    for (const k of ['database', 'table'] as const) if (!KUSTO_NAME.test(f[k].trim())) errors[k] = t('ulName', { field: labelOf[k] });
    eventhouse = { queryUri: f.queryUri.trim(), database: f.database.trim(), table: f.table.trim() };
    if (ok && originOf(eventhouse.queryUri) !== storedQueryUri && f.clientSecret === '') errors.clientSecret = t('ulNeedSecret');
  }
  let metricsApp: Record<string, string> | null = null;
  if (group(['workspaceId', 'datasetId'])) {
    for (const k of ['workspaceId', 'datasetId'] as const) if (!GUID.test(f[k].trim())) errors[k] = t('ulGuid', { field: labelOf[k] });
    metricsApp = { workspaceId: f.workspaceId.trim(), datasetId: f.datasetId.trim() };
  }
  const armScopes = lines(f.armScopes);
  const seen = new Set<string>();
  armScopes.forEach((s, i) => {
    if (errors.armScopes) return;
    if (!ARM_SCOPE.test(s)) errors.armScopes = t('ulScope', { n: i + 1 });
    else if (seen.has(s.toLowerCase())) errors.armScopes = t('ulScopeDup', { n: i + 1 });
    seen.add(s.toLowerCase());
  });
  const warnPercent = whole(f.warnPercent);
  if (!(warnPercent >= 1 && warnPercent <= 100)) errors.warnPercent = t('ulPercent', { field: t('ulWarnPercent') });
  const recoverWindows = whole(f.recoverWindows);
  if (!(recoverWindows >= 1 && recoverWindows <= MAX_RECOVER_WINDOWS)) errors.recoverWindows = t('ulWindows', { field: t('ulRecoverWindows'), max: MAX_RECOVER_WINDOWS });
  const overrides: Record<string, { warnPercent?: number; recoverWindows?: number }> = {};
  lines(f.overrides).forEach((line, i) => {
    if (errors.overrides) return;
    const [name = '', warn = '', win = '', ...rest] = line.split(';').map((x) => x.trim());
    const o: { warnPercent?: number; recoverWindows?: number } = {};
    if (warn) o.warnPercent = whole(warn);
    if (win) o.recoverWindows = whole(win);
    const bad =
      rest.length > 0 ||
      name === '' ||
      name.length > 256 ||
      (!warn && !win) ||
      (o.warnPercent !== undefined && !(o.warnPercent >= 1 && o.warnPercent <= 100)) ||
      (o.recoverWindows !== undefined && !(o.recoverWindows >= 1 && o.recoverWindows <= MAX_RECOVER_WINDOWS));
    if (bad) errors.overrides = t('ulOverrideLine', { n: i + 1 });
    else if (Object.keys(overrides).some((k) => k.toLowerCase() === name.toLowerCase())) errors.overrides = t('ulOverrideDup', { n: i + 1, name });
    else overrides[name] = o;
  });
  if (Object.keys(errors).length > 0) return { errors };
  const utilization = { eventhouse, metricsApp, armScopes, warnPercent, recoverWindows, overrides };
  return { errors, body: { utilization, ...(f.clientSecret !== '' ? { credentials: { clientSecret: f.clientSecret } } : {}) } };
}

const ids = (tenantId: string) => (k: UlField | 'title') => `ul-${k}-${tenantId}`;

/**
 * The tenant's capacity load settings (PATCH `utilization`): its sources and thresholds. The form
 * keeps what the person types while the page re-reads the tenant list; the server checks the same
 * rules again (and that the query URI's host is one Vigia may call).
 */
export function UtilizationForm(props: { path: string; tenantId: string; tenantName: string; utilization: Utilization; onSaved: () => void }) {
  const { t, call } = useConsole();
  const form = useFormValues<UlForm>(formOf(props.utilization));
  const f = form.values;
  const id = ids(props.tenantId);
  const fields = useFieldErrors<UlField>((k) => id(k));
  const save = useAction();
  const submit = () => {
    const parsed = parseForm(t, f, props.utilization.eventhouse?.queryUri ?? null);
    if (!fields.check(parsed.errors) || !parsed.body) return;
    void save.run(async () => {
      const saved = await call<Tenant>('PATCH', props.path, parsed.body);
      form.setValues(formOf(saved.utilization));
      props.onSaved();
      return t('ulSaved', { name: props.tenantName });
    });
  };
  const input = (k: UlField, label: string, hint?: string) => <TextField id={id(k)} label={label} error={fields.errors[k]} hint={hint} value={f[k]} maxLength={2048} onInput={form.onInput(k)} />;
  const area = (k: UlField, label: string, hint?: string) => <TextField id={id(k)} label={label} error={fields.errors[k]} hint={hint} rows={2} value={f[k]} onInput={form.onInput(k)} />;
  return (
    <ActionForm heading="h3" titleId={id('title')} title={t('ulTitle')} help={t('ulHelp')} testId="utilization" action={save} submitLabel={t('ulSave')} submitClass="secondary" onSubmit={submit}>
      <fieldset>
        <legend>{t('ulEventhouse')}</legend>
        <div class="grid">
          {input('queryUri', t('ulQueryUri'), t('ulQueryUriHint'))}
          <TextField id={id('clientSecret')} label={t('ulClientSecret')} error={fields.errors.clientSecret} hint={t('ulClientSecretHint')} type="password" autoComplete="off" value={f.clientSecret} maxLength={1024} onInput={form.onInput('clientSecret')} />
          {input('database', t('ulDatabase'))}
          {input('table', t('ulTable'))}
        </div>
      </fieldset>
      <fieldset>
        <legend>{t('ulMetricsApp')}</legend>
        <div class="grid">
          {input('workspaceId', t('ulWorkspaceId'))}
          {input('datasetId', t('ulDatasetId'))}
        </div>
      </fieldset>
      {area('armScopes', t('ulArmScopes'), t('ulArmScopesHint'))}
      <div class="grid">
        {input('warnPercent', t('ulWarnPercent'))}
        {input('recoverWindows', t('ulRecoverWindows'))}
      </div>
      {area('overrides', t('ulOverrides'), t('ulOverridesHint'))}
    </ActionForm>
  );
}

/** The settings form and, beside it, the automatic set-up of the Eventhouse source (owners). */
export function UtilizationSection(props: { path: string; tenantId: string; tenantName: string; utilization: Utilization; onSaved: () => void }) {
  // A set-up stores the source on the server: the form starts again from the stored settings.
  const [stored, setStored] = useState<{ generation: number; eventhouse: Utilization['eventhouse'] } | null>(null);
  const utilization = stored ? { ...props.utilization, eventhouse: stored.eventhouse } : props.utilization;
  return (
    <section class="utilization">
      <UtilizationForm key={stored?.generation ?? 0} {...props} utilization={utilization} />
      <EventhouseSetupForm
        path={props.path}
        tenantId={props.tenantId}
        onDone={(r) => {
          setStored((prev) => ({ generation: (prev?.generation ?? 0) + 1, eventhouse: r.eventhouse }));
          props.onSaved();
        }}
      />
    </section>
  );
}

type Setup = components['schemas']['EventhouseSetup'];

/**
 * "Create the Eventstream and the table for me" (`POST …/utilization/eventhouse`): a refusal
 * names the permission the service principal lacks, with its fix in the interface language.
 */
export function EventhouseSetupForm(props: { path: string; tenantId: string; onDone: (s: Setup) => void }) {
  const { t, call, lang } = useConsole();
  const form = useFormValues({ workspace: '', eventhouse: '' });
  const f = form.values;
  const [result, setResult] = useState<Setup | null>(null);
  const id = (k: string) => `ul-setup-${k}-${props.tenantId}`;
  const fields = useFieldErrors<'workspace' | 'eventhouse'>((k) => id(k));
  const run = useAction();
  const submit = () => {
    const found: Partial<Record<'workspace' | 'eventhouse', string>> = {};
    if (!GUID.test(f.workspace.trim())) found.workspace = t('ulGuid', { field: t('ulSetupWorkspace') });
    if (f.eventhouse.trim() && !GUID.test(f.eventhouse.trim())) found.eventhouse = t('ulGuid', { field: t('ulSetupEventhouse') });
    if (!fields.check(found)) return;
    setResult(null);
    void run.run(async () => {
      const r = await call<Setup>('POST', `${props.path}/utilization/eventhouse`, { workspaceId: f.workspace.trim(), ...(f.eventhouse.trim() ? { eventhouseId: f.eventhouse.trim() } : {}) });
      setResult(r);
      if (r.outcome !== 'refused') props.onDone(r);
    });
  };
  const eh = result?.eventhouse;
  return (
    <ActionForm heading="h4" titleId={id('title')} title={t('ulSetupTitle')} help={t('ulSetupHelp')} testId="utilization-setup" action={run} submitLabel={t('ulSetupRun')} submitClass="secondary" onSubmit={submit}>
      <WorkspacePicker id={id('pick')} value={f.workspace} onPick={(w) => form.setValue('workspace', w)} />
      <div class="grid">
        <TextField id={id('workspace')} label={t('ulSetupWorkspace')} hint={t('ulSetupWorkspaceHint')} error={fields.errors.workspace} value={f.workspace} maxLength={100} onInput={form.onInput('workspace')} />
        <TextField id={id('eventhouse')} label={t('ulSetupEventhouse')} error={fields.errors.eventhouse} value={f.eventhouse} maxLength={100} onInput={form.onInput('eventhouse')} />
      </div>
      {result?.outcome === 'refused' && result.refusal && (
        <p class="error" role="alert" data-permission={result.refusal.permission}>
          {result.refusal.fix[lang]} <small class="error-detail">{t('serverSaid')} <span lang={lang === 'en' ? undefined : 'en'}>{result.refusal.detail}</span></small>
        </p>
      )}
      {result && result.outcome !== 'refused' && eh && (
        <Notice>
          {result.outcome === 'created'
            ? t('ulSetupDone', { eventstream: result.eventstreamId ?? '', n: result.capacityIds.length, database: eh.database, table: eh.table })
            : t('ulSetupAlready', { database: eh.database, table: eh.table })}
        </Notice>
      )}
    </ActionForm>
  );
}
