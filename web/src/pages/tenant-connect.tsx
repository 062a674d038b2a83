import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Tenant, TenantCheck } from '../api.js';
import { CheckResult } from './tenant-check.js';
import { useConsole } from '../app-context.js';
import { useAction, useFieldErrors } from '../components.js';
import { ActionForm, TextField, useFormValues } from '../forms.js';
import type { TextKey } from '../i18n.js';

const lines = (s: string) =>
  s
    .split(/\r?\n/)
    .map((x) => x.trim())
    .filter(Boolean);

/** The connect form's required fields and their controls. */
const FIELD_IDS = { name: 'tn-name', tenantId: 'tn-tenant-id', clientId: 'tn-client-id', secret: 'tn-secret', cert: 'tn-cert', key: 'tn-key' } as const;
type Required = keyof typeof FIELD_IDS;

const EMPTY = { name: '', tenantId: '', clientId: '', mode: 'admin', credential: 'secret', secret: '', cert: '', key: '', workspaces: '', costScopes: '' };
type Values = typeof EMPTY;

/** The sign-in and API endpoints of a sovereign cloud or the tenant simulator (empty: the public cloud's). */
const ENDPOINTS = [
  ['authorityHost', 'tnAuthority'],
  ['powerBi', 'tnPowerBi'],
  ['fabric', 'tnFabric'],
  ['arm', 'tnArm'],
] as const;

/** The required fields left empty, each with its message. */
function missingFields(f: Values, t: (key: TextKey, vars?: Record<string, string>) => string): Partial<Record<Required, string>> {
  const required: Array<readonly [Required, TextKey]> = [
    ['name', 'tnName'],
    ['tenantId', 'tnTenantId'],
    ['clientId', 'tnClientId'],
    ...(f.credential === 'secret' ? ([['secret', 'tnSecret']] as const) : ([['cert', 'tnCertificatePem'], ['key', 'tnPrivateKeyPem']] as const)),
  ];
  const found: Partial<Record<Required, string>> = {};
  for (const [k, label] of required) if (!f[k].trim()) found[k] = t('fieldRequired', { field: t(label) });
  return found;
}

/** Connect a tenant (owners): the app registration, its mode and credential, workspaces, cost scopes and endpoints. */
export function ConnectForm(props: { path: string; onConnected: () => void }) {
  const { t, call } = useConsole();
  const form = useFormValues(EMPTY);
  const ep = useFormValues({ authorityHost: '', powerBi: '', fabric: '', arm: '' });
  const fields = useFieldErrors<Required>((k) => FIELD_IDS[k]);
  const create = useAction();
  /** What the token endpoint said when the connection was saved (the save's `credentialCheck`). */
  const [verdict, setVerdict] = useState<{ name: string; check: TenantCheck } | null>(null);
  const f = form.values;
  const submit = () => {
    if (!fields.check(missingFields(f, t))) return;
    const endpoints = Object.fromEntries(Object.entries(ep.values).filter(([, v]) => v.trim()).map(([k, v]) => [k, v.trim()]));
    const workspaces = lines(f.workspaces);
    void create.run(async () => {
      setVerdict(null);
      const made = await call<Tenant & { credentialCheck?: TenantCheck }>('POST', props.path, {
        name: f.name.trim(),
        tenantId: f.tenantId.trim(),
        clientId: f.clientId.trim(),
        mode: f.mode,
        credentials: f.credential === 'secret' ? { clientSecret: f.secret } : { certificatePem: f.cert, privateKeyPem: f.key },
        ...(workspaces.length ? { workspaces } : {}),
        costScopes: lines(f.costScopes),
        ...(Object.keys(endpoints).length ? { endpoints } : {}),
      });
      // The credential leaves the page with the request: the form forgets it.
      form.setValues({ ...f, secret: '', cert: '', key: '', name: '' });
      props.onConnected();
      // Saved whatever the token endpoint said: the notice says which, the verdict shows below.
      if (made.credentialCheck) setVerdict({ name: made.name, check: made.credentialCheck });
      if (!made.credentialCheck) return t('tnConnected', { name: made.name });
      return t(made.credentialCheck.ok ? 'tnConnectedOk' : 'tnConnectedProblems', { name: made.name });
    });
  };
  return (
    <ActionForm class="card" titleId="connect-tenant" title={t('tnConnect')} action={create} submitLabel={t('tnConnect')} onSubmit={submit}>
      <div class="grid">
        <TextField id="tn-name" label={t('tnName')} error={fields.errors.name} value={f.name} maxLength={200} onInput={form.onInput('name')} />
        <TextField id="tn-tenant-id" label={t('tnTenantId')} error={fields.errors.tenantId} value={f.tenantId} maxLength={100} onInput={form.onInput('tenantId')} />
        <TextField id="tn-client-id" label={t('tnClientId')} error={fields.errors.clientId} value={f.clientId} maxLength={100} onInput={form.onInput('clientId')} />
      </div>
      <Choice legend={t('tnMode')} name="tn-mode" value={f.mode} onChange={form.onInput('mode')} options={[['admin', t('tnModeAdmin')], ['member', t('tnModeMember')]]} />
      <Choice legend={t('tnCredential')} name="tn-credential" value={f.credential} onChange={form.onInput('credential')} options={[['secret', t('tnSecret')], ['certificate', t('tnCertificate')]]}>
        {f.credential === 'secret' ? (
          <TextField id="tn-secret" label={t('tnSecret')} error={fields.errors.secret} type="password" autoComplete="off" value={f.secret} maxLength={1024} onInput={form.onInput('secret')} />
        ) : (
          <>
            <TextField id="tn-cert" label={t('tnCertificatePem')} error={fields.errors.cert} rows={4} value={f.cert} onInput={form.onInput('cert')} />
            <TextField id="tn-key" label={t('tnPrivateKeyPem')} error={fields.errors.key} rows={4} autoComplete="off" value={f.key} onInput={form.onInput('key')} />
          </>
        )}
      </Choice>
      <TextField id="tn-workspaces" label={t('tnWorkspaces')} rows={2} value={f.workspaces} onInput={form.onInput('workspaces')} />
      <TextField id="tn-cost-scopes" label={t('tnCostScopes')} rows={2} value={f.costScopes} onInput={form.onInput('costScopes')} />
      <details>
        <summary>{t('tnEndpoints')}</summary>
        <div class="grid">
          {ENDPOINTS.map(([k, label]) => (
            <TextField key={k} id={`tn-ep-${k}`} label={t(label)} type="url" value={ep.values[k]} maxLength={2048} onInput={ep.onInput(k)} />
          ))}
        </div>
      </details>
      {verdict && <CheckResult tenantName={verdict.name} check={verdict.check} />}
    </ActionForm>
  );
}

/** A group of radio buttons under its legend, and what the choice shows below them. */
function Choice(props: { legend: string; name: string; value: string; onChange: (e: Event) => void; options: Array<[string, string]>; children?: ComponentChildren }) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.options.map(([value, text]) => (
        <label key={value} class="check">
          <input type="radio" name={props.name} value={value} checked={props.value === value} onChange={props.onChange} />
          {text}
        </label>
      ))}
      {props.children}
    </fieldset>
  );
}
