import { useState } from 'preact/hooks';
import type { Silence } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { ConfirmAction, Empty, ErrorMessage, Field, useAction, useFieldErrors, useLoad, usePageTitle, useRemoval } from '../components.js';
import { DateField, readDateField } from '../date-field.js';
import { formatDate } from '../format.js';

const EMPTY_FORM = { sourceType: '', sourceId: '', notificationKind: '', endsAt: '', comment: '' };

export function SilencesPage(props: { orgId: string }) {
  const { t, call } = useConsole();
  usePageTitle(t('silencesTitle'));
  const path = orgPath(props.orgId, '/silences');
  const list = useLoad((signal) => call<Silence[]>('GET', path, undefined, signal), [path]);
  return (
    <section>
      <h1>{t('silencesTitle')}</h1>
      {list.loading && !list.data && <p>{t('loading')}</p>}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && list.data.length === 0 && <Empty>{t('silencesEmpty')}</Empty>}
      {list.data && list.data.length > 0 && <SilencesTable path={path} silences={list.data} onChange={list.reload} />}
      <NewSilenceForm path={path} onCreated={list.reload} />
    </section>
  );
}

/** The silences, each active one endable after a confirmation. */
function SilencesTable(props: { path: string; silences: Silence[]; onChange: () => void }) {
  const { t, lang } = useConsole();
  const end = useRemoval(props.path, props.onChange);
  const describe = (s: Silence) => {
    const names: Record<string, string> = { sourceType: t('sourceType'), sourceId: t('sourceId'), notificationKind: t('notificationKind') };
    const parts = Object.entries(s.matchers).map(([k, v]) => `${names[k] ?? k} = ${v}`);
    return parts.length ? parts.join(' · ') : t('matchAll');
  };
  return (
    <>
      <ErrorMessage error={end.error} />
      <table class="list">
        <caption class="sr-only">{t('silencesTitle')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('matchers')}</th>
            <th scope="col">{t('startsAt')}</th>
            <th scope="col">{t('endsAt')}</th>
            <th scope="col">{t('state')}</th>
            <th scope="col">
              <span class="sr-only">{t('endSilence')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.silences.map((s) => (
            <tr key={s.id}>
              <td data-label={t('matchers')}>
                {describe(s)}
                {s.comment && <small class="muted"> — {s.comment}</small>}
              </td>
              <td data-label={t('startsAt')}>{formatDate(lang, s.startsAt)}</td>
              <td data-label={t('endsAt')}>{formatDate(lang, s.endsAt)}</td>
              <td data-label={t('state')}>{s.active ? t('silenceActive') : t('silenceEnded')}</td>
              <td>
                {s.active && (
                  <ConfirmAction
                    label={t('endSilence')}
                    accessibleLabel={`${t('endSilence')}: ${describe(s)}`}
                    question={t('endSilenceConfirm')}
                    onConfirm={() => end.remove(s.id)}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** A new silence: optional matchers, an end in the future, a comment. */
function NewSilenceForm(props: { path: string; onCreated: () => void }) {
  const { t, call, lang } = useConsole();
  const [form, setForm] = useState(EMPTY_FORM);
  const fields = useFieldErrors<'endsAt'>((f) => `silence-${f}`);
  const create = useAction();

  const submit = (e: Event) => {
    e.preventDefault();
    const read = readDateField(t, lang, t('endsAt'), form.endsAt, { withTime: true });
    const endsAt = read.iso;
    const inFuture = endsAt !== undefined && endsAt !== null && new Date(endsAt) > new Date();
    if (!fields.check(read.error ? { endsAt: read.error } : inFuture ? {} : { endsAt: t('endsAtRequired') }) || !endsAt) return;
    const matchers: Record<string, string> = {};
    for (const k of ['sourceType', 'sourceId', 'notificationKind'] as const) if (form[k].trim()) matchers[k] = form[k].trim();
    void create.run(async () => {
      await call('POST', props.path, { matchers, endsAt, ...(form.comment.trim() ? { comment: form.comment.trim() } : {}) });
      setForm(EMPTY_FORM);
      props.onCreated();
    });
  };
  const input = (key: keyof typeof form, label: string) => (
    <Field id={`silence-${key}`} label={label}>
      <input id={`silence-${key}`} value={form[key]} onInput={(e) => {
        const value = (e.target as HTMLInputElement).value;
        // From the latest state, not this render's: two fields filled before a re-render both count.
        setForm((f) => ({ ...f, [key]: value }));
      }} />
    </Field>
  );

  return (
    <form class="card" noValidate onSubmit={submit} aria-labelledby="new-silence">
      <h2 id="new-silence">{t('newSilence')}</h2>
      <p class="muted">{t('matcherHelp')}</p>
      <div class="grid">
        {input('sourceType', t('sourceType'))}
        {input('sourceId', t('sourceId'))}
        {input('notificationKind', t('notificationKind'))}
        <DateField id="silence-endsAt" label={t('endsAt')} withTime value={form.endsAt} onValue={(v) => setForm((f) => ({ ...f, endsAt: v }))} error={fields.errors.endsAt} />
        {input('comment', t('comment'))}
      </div>
      <ErrorMessage error={create.error} />
      <button type="submit" disabled={create.busy}>
        {t('create')}
      </button>
    </form>
  );
}
