import { useState } from 'preact/hooks';
import { ActionForm, SelectField } from '../forms.js';
import { DESTINATION_KINDS, type CreatedDestination, type Destination, type DestinationKind } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { Field, useAction, useFieldErrors } from '../components.js';
import type { TextKey, Translate } from '../i18n.js';
import { kindLabel } from '../labels.js';
import { MessagePreview } from './message-preview.js';

/** One input of a kind's form: where it goes in the request and how it is checked before sending. */
interface FieldSpec {
  name: string;
  label: TextKey;
  target: 'url' | 'config' | 'credentials' | 'signatureScheme';
  required?: boolean;
  https?: boolean;
  length?: number;
  secret?: boolean;
  /** A list typed as comma- or line-separated values (sent as an array). */
  list?: boolean;
  /** A whole number (sent as a JSON number). */
  integer?: boolean;
  options?: { value: string; label: TextKey | string }[];
}

const PRIORITIES = [{ value: '', label: 'priorityDefault' as TextKey }, ...['P1', 'P2', 'P3', 'P4', 'P5'].map((p) => ({ value: p, label: p }))];
const REGIONS = [
  { value: 'us', label: 'regionUs' as TextKey },
  { value: 'eu', label: 'regionEu' as TextKey },
];

/** The fields of each kind, as the admin API and each connector expect them. */
export const KIND_FIELDS: Record<DestinationKind, FieldSpec[]> = {
  webhook: [
    { name: 'url', label: 'url', target: 'url', required: true, https: true },
    {
      name: 'signatureScheme',
      label: 'signatureScheme',
      target: 'signatureScheme',
      options: [
        { value: 'service', label: 'schemeService' },
        { value: 'service+standard', label: 'schemeStandard' },
      ],
    },
  ],
  pagerduty: [
    { name: 'region', label: 'region', target: 'config', options: REGIONS },
    { name: 'apiBaseUrl', label: 'apiBaseUrl', target: 'config', https: true },
    { name: 'routingKey', label: 'routingKey', target: 'credentials', required: true, length: 32, secret: true },
  ],
  opsgenie: [
    { name: 'region', label: 'region', target: 'config', options: REGIONS },
    { name: 'apiBaseUrl', label: 'apiBaseUrl', target: 'config', https: true },
    { name: 'priority', label: 'priority', target: 'config', options: PRIORITIES },
    { name: 'apiKey', label: 'apiKeyField', target: 'credentials', required: true, secret: true },
  ],
  jsm: [
    { name: 'apiBaseUrl', label: 'apiBaseUrl', target: 'config', https: true },
    { name: 'priority', label: 'priority', target: 'config', options: PRIORITIES },
    { name: 'apiKey', label: 'apiKeyField', target: 'credentials', required: true, secret: true },
  ],
  servicenow: [
    { name: 'instanceUrl', label: 'instanceUrl', target: 'config', required: true, https: true },
    { name: 'closeCode', label: 'closeCode', target: 'config' },
    { name: 'username', label: 'username', target: 'credentials', required: true },
    { name: 'password', label: 'password', target: 'credentials', required: true, secret: true },
  ],
  'azure-devops': [
    { name: 'organizationUrl', label: 'organizationUrl', target: 'config', required: true, https: true },
    { name: 'project', label: 'project', target: 'config', required: true },
    { name: 'personalAccessToken', label: 'personalAccessToken', target: 'credentials', required: true, secret: true },
  ],
  teams: [
    { name: 'webhookUrl', label: 'teamsWebhookUrl', target: 'credentials', required: true, https: true, secret: true },
    { name: 'groupWaitSeconds', label: 'groupWaitSeconds', target: 'config', integer: true },
  ],
  slack: [
    { name: 'webhookUrl', label: 'slackWebhookUrl', target: 'credentials', required: true, https: true, secret: true },
    { name: 'appSigningSecret', label: 'slackSigningSecret', target: 'credentials', secret: true },
    { name: 'groupWaitSeconds', label: 'groupWaitSeconds', target: 'config', integer: true },
  ],
  email: [
    { name: 'recipients', label: 'recipients', target: 'config', required: true, list: true },
    { name: 'groupWaitSeconds', label: 'groupWaitSeconds', target: 'config', integer: true },
    {
      name: 'digest',
      label: 'digest',
      target: 'config',
      options: [
        { value: '', label: 'digestNone' },
        { value: 'hourly', label: 'digestHourly' },
        { value: 'daily', label: 'digestDaily' },
      ],
    },
  ],
};

function isHttpsUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'https:' && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Problems with the values, in words, by field (`name` or the kind's field name); empty when the request can be sent. */
export function validateFields(t: Translate, kind: DestinationKind, name: string, values: Record<string, string>): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!name.trim()) problems.name = t('fieldRequired', { field: t('name') });
  for (const f of KIND_FIELDS[kind]) {
    const v = (values[f.name] ?? '').trim();
    const field = t(f.label);
    if (!v) {
      if (f.required) problems[f.name] = t('fieldRequired', { field });
      continue;
    }
    if (f.https && !isHttpsUrl(v)) problems[f.name] = t('fieldHttps', { field });
    else if (f.length && v.length !== f.length) problems[f.name] = t('fieldLength', { field, n: f.length });
    else if (f.integer && !/^\d{1,6}$/.test(v)) problems[f.name] = t('fieldInteger', { field });
  }
  return problems;
}

/** The create request of a kind: only that kind's fields, empty optional ones left out. */
export function createBody(kind: DestinationKind, name: string, values: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = { name: name.trim(), kind };
  const config: Record<string, string | string[] | number> = {};
  const credentials: Record<string, string> = {};
  for (const f of KIND_FIELDS[kind]) {
    const v = (values[f.name] ?? '').trim();
    if (!v) continue;
    if (f.target === 'url') body.url = v;
    else if (f.target === 'signatureScheme') body.signatureScheme = v;
    else if (f.target === 'config') config[f.name] = f.list ? v.split(/[,;\n]/).map((s) => s.trim()).filter(Boolean) : f.integer ? Number(v) : v;
    else credentials[f.name] = f.secret ? (values[f.name] ?? '') : v;
  }
  if (Object.keys(config).length) body.config = config;
  if (Object.keys(credentials).length) body.credentials = credentials;
  return body;
}

export function DestinationForm(props: { orgId: string; onCreated: (d: Destination & { signingSecret?: string }) => void }) {
  const { t, call } = useConsole();
  const [kind, setKind] = useState<DestinationKind>('webhook');
  const [name, setName] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const fields = useFieldErrors<string>((f) => `dest-${f}`);
  const action = useAction();

  const set = (field: string, value: string) => setValues((v) => ({ ...v, [field]: value }));

  const submit = () => {
    if (!fields.check(validateFields(t, kind, name, values))) return;
    void action.run(async () => {
      const created = await call<CreatedDestination>('POST', orgPath(props.orgId, '/destinations'), createBody(kind, name, values));
      setName('');
      setValues({});
      props.onCreated(created);
    });
  };

  return (
    <ActionForm class="card" titleId="new-destination" title={t('newDestination')} action={action} submitLabel={action.busy ? t('creating') : t('create')} onSubmit={submit}>
      <div class="grid">
        <SelectField
          id="dest-kind"
          label={t('kind')}
          value={kind}
          onValue={(v) => {
            setKind(v as DestinationKind);
            setValues({});
            fields.clear();
          }}
          options={DESTINATION_KINDS.map((k) => [k, kindLabel(t, k)] as const)}
        />
        <Field id="dest-name" label={t('name')} error={fields.errors.name}>
          <input id="dest-name" value={name} maxLength={200} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        {KIND_FIELDS[kind].map((f) => {
          const id = `dest-${f.name}`;
          return (
            <Field key={`${kind}-${f.name}`} id={id} label={t(f.label)} error={fields.errors[f.name]}>
              {f.options ? (
                <select id={id} value={values[f.name] ?? f.options[0]!.value} onChange={(e) => set(f.name, (e.target as HTMLSelectElement).value)}>
                  {f.options.map((o) => (
                    <option key={o.value} value={o.value}>
                      {o.label in LABEL_KEYS ? t(o.label as TextKey) : o.label}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  id={id}
                  type={f.secret ? 'password' : f.https ? 'url' : 'text'}
                  autoComplete="off"
                  aria-required={f.required ? 'true' : undefined}
                  value={values[f.name] ?? ''}
                  onInput={(e) => set(f.name, (e.target as HTMLInputElement).value)}
                />
              )}
            </Field>
          );
        })}
      </div>
      <MessagePreview orgId={props.orgId} kind={kind} slackButtons={!!values.appSigningSecret} />
    </ActionForm>
  );
}

// Option labels that are text keys (the rest, like P1, are shown as they are).
const LABEL_KEYS: Record<string, true> = {
  priorityDefault: true,
  regionUs: true,
  regionEu: true,
  schemeService: true,
  schemeStandard: true,
  digestNone: true,
  digestHourly: true,
  digestDaily: true,
};
