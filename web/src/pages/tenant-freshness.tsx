import { useEffect, useState } from 'preact/hooks';
import type { components } from '../admin-api.gen.js';
import { useConsole } from '../app-context.js';
import { ConfirmAction, ErrorMessage, Field, Loading, Notice, useAction, useLoad } from '../components.js';

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

export function FreshnessSection(props: { path: string; tenantName: string }) {
  const { t, call, can } = useConsole();
  const url = `${props.path}/freshness`;
  const loaded = useLoad((signal) => call<Settings>('GET', url, undefined, signal), [url]);
  const [f, setF] = useState({ grace: '', maxAge: '', workspaces: '', items: '' });
  const [problems, setProblems] = useState<string[]>([]);
  const save = useAction();
  const reset = useAction();
  const fill = (s: Settings) => setF({ grace: String(s.graceMinutes), maxAge: s.maxAgeMinutes === null ? '' : String(s.maxAgeMinutes), workspaces: toLines(s.workspaces), items: toLines(s.items) });
  useEffect(() => {
    if (loaded.data) fill(loaded.data);
  }, [loaded.data]);
  const editable = can('owner');
  const idBase = `fs-${props.path.replace(/[^\w-]/g, '-')}`;
  const set = (k: keyof typeof f) => (e: Event) => {
    const value = (e.target as HTMLInputElement).value;
    setF((prev) => ({ ...prev, [k]: value }));
  };

  const parseLines = (text: string, field: string, found: string[]) =>
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .flatMap((l, i) => {
        if (!l) return [];
        const [id, minutes] = l.split('=').map((x) => x.trim());
        const n = minutes === undefined ? null : wholeMinutes(minutes, MAX_AGE);
        if (!id || n === null) {
          found.push(t('fsBadLine', { field, line: String(i + 1), max: String(MAX_AGE) }));
          return [];
        }
        return [{ id, maxAgeMinutes: n }];
      });

  const submit = (e: Event) => {
    e.preventDefault();
    const found: string[] = [];
    const grace = wholeMinutes(f.grace, MAX_GRACE);
    if (grace === null) found.push(t('fsBadMinutes', { field: t('fsGrace'), max: String(MAX_GRACE) }));
    const maxAge = f.maxAge.trim() === '' ? null : wholeMinutes(f.maxAge, MAX_AGE);
    if (f.maxAge.trim() !== '' && maxAge === null) found.push(t('fsBadMinutes', { field: t('fsMaxAge'), max: String(MAX_AGE) }));
    const workspaces = parseLines(f.workspaces, t('fsWorkspaces'), found);
    const items = parseLines(f.items, t('fsItems'), found);
    setProblems(found);
    if (found.length) return;
    void save.run(async () => {
      fill(await call<Settings>('PUT', url, { graceMinutes: grace, maxAgeMinutes: maxAge, workspaces, items }));
      return t('fsSaved');
    });
  };

  return (
    <section aria-labelledby={`${idBase}-title`} data-testid="freshness">
      <h3 id={`${idBase}-title`}>{t('fsTitle', { name: props.tenantName })}</h3>
      <p class="muted">{t('fsIntro')}</p>
      {loaded.loading && !loaded.data && <Loading />}
      <ErrorMessage error={loaded.error} onRetry={loaded.reload} />
      {loaded.data && (
        <form noValidate onSubmit={submit}>
          <div class="grid">
            <Field id={`${idBase}-grace`} label={t('fsGrace')}>
              <input id={`${idBase}-grace`} inputMode="numeric" value={f.grace} disabled={!editable} onInput={set('grace')} />
            </Field>
            <Field id={`${idBase}-max-age`} label={t('fsMaxAge')}>
              <input id={`${idBase}-max-age`} inputMode="numeric" value={f.maxAge} disabled={!editable} onInput={set('maxAge')} />
            </Field>
          </div>
          <Field id={`${idBase}-workspaces`} label={t('fsWorkspaces')}>
            <textarea id={`${idBase}-workspaces`} rows={2} value={f.workspaces} disabled={!editable} onInput={set('workspaces')} />
          </Field>
          <Field id={`${idBase}-items`} label={t('fsItems')}>
            <textarea id={`${idBase}-items`} rows={2} value={f.items} disabled={!editable} onInput={set('items')} />
          </Field>
          {problems.length > 0 && (
            <ul class="error" role="alert">
              {problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          )}
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
                    await call('DELETE', url);
                    loaded.reload();
                    return t('fsWasReset');
                  })
                }
              />
            </p>
          )}
        </form>
      )}
    </section>
  );
}
