import { useEffect, useState } from 'preact/hooks';
import type { components } from '../admin-api.gen.js';
import { useConsole } from '../app-context.js';
import { ConfirmAction, ErrorMessage, Notice, useAction } from '../components.js';
import { Problems, TextField, useFormValues } from '../forms.js';
import type { Translate } from '../i18n.js';
import { LoadState, useGet } from '../lists.js';

/**
 * The Tenant page's data freshness section: the grace period of scheduled refreshes and the
 * maximum data age per tenant, workspace and item (PUT/DELETE …/tenants/{id}/freshness).
 * Viewers and operators see the values; owners change them (like every tenant setting).
 */
type Settings = components['schemas']['FreshnessSettings'];

/** Mirrors the server's limits (src/monitoring/freshness-settings.ts) for messages before sending. */
const MAX_GRACE = 24 * 60;
const MAX_AGE = 90 * 24 * 60;

const toLines = (list: Array<{ id: string; maxAgeMinutes: number }>) => list.map((e) => `${e.id}=${e.maxAgeMinutes}`).join('\n');

function wholeMinutes(text: string, max: number): number | null {
  if (!/^\d+$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return n >= 1 && n <= max ? n : null;
}

type Values = { grace: string; maxAge: string; workspaces: string; items: string };

const valuesOf = (s: Settings): Values => ({
  grace: String(s.graceMinutes),
  maxAge: s.maxAgeMinutes === null ? '' : String(s.maxAgeMinutes),
  workspaces: toLines(s.workspaces),
  items: toLines(s.items),
});

/** The settings the form's values say, or the reasons they are refused (checked like the server does). */
function readSettings(f: Values, t: Translate): { settings: Omit<Settings, 'graceMinutes'> & { graceMinutes: number | null }; problems: string[] } {
  const problems: string[] = [];
  const parseLines = (text: string, field: string) =>
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .flatMap((l, i) => {
        if (!l) return [];
        const [id, minutes] = l.split('=').map((x) => x.trim());
        const n = minutes === undefined ? null : wholeMinutes(minutes, MAX_AGE);
        if (!id || n === null) {
          problems.push(t('fsBadLine', { field, line: String(i + 1), max: String(MAX_AGE) }));
          return [];
        }
        return [{ id, maxAgeMinutes: n }];
      });
  const grace = wholeMinutes(f.grace, MAX_GRACE);
  if (grace === null) problems.push(t('fsBadMinutes', { field: t('fsGrace'), max: String(MAX_GRACE) }));
  const maxAge = f.maxAge.trim() === '' ? null : wholeMinutes(f.maxAge, MAX_AGE);
  if (f.maxAge.trim() !== '' && maxAge === null) problems.push(t('fsBadMinutes', { field: t('fsMaxAge'), max: String(MAX_AGE) }));
  const workspaces = parseLines(f.workspaces, t('fsWorkspaces'));
  const items = parseLines(f.items, t('fsItems'));
  return { settings: { graceMinutes: grace, maxAgeMinutes: maxAge, workspaces, items }, problems };
}

export function FreshnessSection(props: { path: string; tenantName: string }) {
  const { t } = useConsole();
  const url = `${props.path}/freshness`;
  const loaded = useGet<Settings>(url);
  const idBase = `fs-${props.path.replace(/[^\w-]/g, '-')}`;
  return (
    <section aria-labelledby={`${idBase}-title`} data-testid="freshness">
      <h3 id={`${idBase}-title`}>{t('fsTitle', { name: props.tenantName })}</h3>
      <p class="muted">{t('fsIntro')}</p>
      <LoadState list={loaded}>{(settings) => <FreshnessForm url={url} idBase={idBase} tenantName={props.tenantName} settings={settings} onReset={loaded.reload} />}</LoadState>
    </section>
  );
}

/** The freshness values: everyone sees them, owners change them (saved, or reset to the defaults after a confirmation). */
function FreshnessForm(props: { url: string; idBase: string; tenantName: string; settings: Settings; onReset: () => void }) {
  const { t, call, can } = useConsole();
  const form = useFormValues(valuesOf(props.settings));
  const [problems, setProblems] = useState<string[]>([]);
  const save = useAction();
  const reset = useAction();
  useEffect(() => form.setValues(valuesOf(props.settings)), [props.settings]);
  const editable = can('owner');
  const f = form.values;
  const id = (k: string) => `${props.idBase}-${k}`;
  const submit = (e: Event) => {
    e.preventDefault();
    const read = readSettings(f, t);
    setProblems(read.problems);
    if (read.problems.length) return;
    void save.run(async () => {
      form.setValues(valuesOf(await call<Settings>('PUT', props.url, read.settings)));
      return t('fsSaved');
    });
  };
  return (
    <form noValidate onSubmit={submit}>
      <div class="grid">
        <TextField id={id('grace')} label={t('fsGrace')} inputMode="numeric" value={f.grace} disabled={!editable} onInput={form.onInput('grace')} />
        <TextField id={id('max-age')} label={t('fsMaxAge')} inputMode="numeric" value={f.maxAge} disabled={!editable} onInput={form.onInput('maxAge')} />
      </div>
      <TextField id={id('workspaces')} label={t('fsWorkspaces')} rows={2} value={f.workspaces} disabled={!editable} onInput={form.onInput('workspaces')} />
      <TextField id={id('items')} label={t('fsItems')} rows={2} value={f.items} disabled={!editable} onInput={form.onInput('items')} />
      <Problems problems={problems} />
      {save.notice && <Notice>{save.notice}</Notice>}
      {reset.notice && <Notice>{reset.notice}</Notice>}
      <ErrorMessage error={save.error} />
      <ErrorMessage error={reset.error} />
      {editable && (
        <p>
          <button type="submit" disabled={save.busy}>
            {t('fsSave')}
          </button>{' '}
          <ConfirmAction
            label={t('fsReset')}
            question={t('fsResetQuestion', { name: props.tenantName })}
            onConfirm={() =>
              reset.run(async () => {
                await call('DELETE', props.url);
                props.onReset();
                return t('fsWasReset');
              })
            }
          />
        </p>
      )}
    </form>
  );
}
