import type { Silence } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { useAction, useFieldErrors } from '../components.js';
import { ActionForm, TextField, useFormValues } from '../forms.js';
import { ListPage, RemovableTable, useGet } from '../lists.js';
import { DateField, readDateField } from '../date-field.js';
import { formatDate } from '../format.js';

const EMPTY_FORM = { sourceType: '', sourceId: '', notificationKind: '', endsAt: '', comment: '' };

export function SilencesPage(props: { orgId: string }) {
  const { t } = useConsole();
  const path = orgPath(props.orgId, '/silences');
  const list = useGet<Silence[]>(path);
  return (
    <ListPage title={t('silencesTitle')} list={list} empty={t('silencesEmpty')} after={<NewSilenceForm path={path} onCreated={list.reload} />}>
      {(silences) => <SilencesTable path={path} silences={silences} onChange={list.reload} />}
    </ListPage>
  );
}

/** The silences, each active one endable after a confirmation. */
function SilencesTable(props: { path: string; silences: Silence[]; onChange: () => void }) {
  const { t, lang } = useConsole();
  const describe = (s: Silence) => {
    const names: Record<string, string> = { sourceType: t('sourceType'), sourceId: t('sourceId'), notificationKind: t('notificationKind') };
    const parts = Object.entries(s.matchers).map(([k, v]) => `${names[k] ?? k} = ${v}`);
    return parts.length ? parts.join(' · ') : t('matchAll');
  };
  return (
    <RemovableTable
      path={props.path}
      onChange={props.onChange}
      caption={t('silencesTitle')}
      rows={props.silences}
      rowKey={(s) => s.id}
      columns={[
        {
          label: t('matchers'),
          cell: (s) => (
            <>
              {describe(s)}
              {s.comment && <small class="muted"> — {s.comment}</small>}
            </>
          ),
        },
        { label: t('startsAt'), cell: (s) => formatDate(lang, s.startsAt) },
        { label: t('endsAt'), cell: (s) => formatDate(lang, s.endsAt) },
        { label: t('state'), cell: (s) => (s.active ? t('silenceActive') : t('silenceEnded')) },
      ]}
      removal={{ label: t('endSilence'), question: () => t('endSilenceConfirm'), name: describe, id: (s) => s.id, offered: (s) => s.active }}
    />
  );
}

/** A new silence: optional matchers, an end in the future, a comment. */
function NewSilenceForm(props: { path: string; onCreated: () => void }) {
  const { t, call, lang } = useConsole();
  const form = useFormValues(EMPTY_FORM);
  const f = form.values;
  const fields = useFieldErrors<'endsAt'>((k) => `silence-${k}`);
  const create = useAction();

  const submit = () => {
    const read = readDateField(t, lang, t('endsAt'), f.endsAt, { withTime: true });
    const endsAt = read.iso;
    const inFuture = endsAt !== undefined && endsAt !== null && new Date(endsAt) > new Date();
    if (!fields.check(read.error ? { endsAt: read.error } : inFuture ? {} : { endsAt: t('endsAtRequired') }) || !endsAt) return;
    const matchers: Record<string, string> = {};
    for (const k of ['sourceType', 'sourceId', 'notificationKind'] as const) if (f[k].trim()) matchers[k] = f[k].trim();
    void create.run(async () => {
      await call('POST', props.path, { matchers, endsAt, ...(f.comment.trim() ? { comment: f.comment.trim() } : {}) });
      form.setValues(EMPTY_FORM);
      props.onCreated();
    });
  };
  const input = (key: keyof typeof f, label: string) => <TextField id={`silence-${key}`} label={label} value={f[key]} onInput={form.onInput(key)} />;

  return (
    <ActionForm class="card" titleId="new-silence" title={t('newSilence')} help={t('matcherHelp')} action={create} submitLabel={t('create')} onSubmit={submit}>
      <div class="grid">
        {input('sourceType', t('sourceType'))}
        {input('sourceId', t('sourceId'))}
        {input('notificationKind', t('notificationKind'))}
        <DateField id="silence-endsAt" label={t('endsAt')} withTime value={f.endsAt} onValue={(v) => form.setValue('endsAt', v)} error={fields.errors.endsAt} />
        {input('comment', t('comment'))}
      </div>
    </ActionForm>
  );
}
