import { useEffect, useState } from 'preact/hooks';
import type { Org } from '../api.js';
import { useConsole } from '../app-context.js';
import { useAction } from '../components.js';
import { ActionForm, SelectField, TextField } from '../forms.js';
import { ListPage, useGet } from '../lists.js';

/**
 * The organization's settings (docs/notifications.md): the language and time zone of its chat
 * and e-mail messages, and whether an acknowledge link needs a console sign-in.
 */
export function OrgSettingsPage(props: { orgId: string }) {
  const { t } = useConsole();
  const org = useGet<Org>(`/orgs/${encodeURIComponent(props.orgId)}`);
  return (
    <ListPage title={t('settingsTitle')} list={org} empty="">
      {(o) => <SettingsForm org={o} onSaved={org.reload} />}
    </ListPage>
  );
}

function SettingsForm(props: { org: Org; onSaved: () => void }) {
  const { t, call } = useConsole();
  const [language, setLanguage] = useState<string>(props.org.language);
  const [timeZone, setTimeZone] = useState(props.org.timeZone);
  const [requireSignIn, setRequireSignIn] = useState(props.org.ackRequiresSignIn);
  const [invalid, setInvalid] = useState<string | null>(null);
  const save = useAction();
  // Filled from the organization when another one is shown, not on every reload: the reload that
  // follows a save must not overwrite what someone typed meanwhile (the fields already hold what
  // was saved; the answer's values replace them).
  const orgId = props.org.id;
  useEffect(() => {
    setLanguage(props.org.language);
    setTimeZone(props.org.timeZone);
    setRequireSignIn(props.org.ackRequiresSignIn);
  }, [orgId]);
  const submit = () => {
    const zone = timeZone.trim();
    if (!/^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(zone) || zone.length > 64) return setInvalid(t('orgTimeZoneInvalid'));
    setInvalid(null);
    void save.run(async () => {
      const saved = await call<Org>('PATCH', `/orgs/${encodeURIComponent(props.org.id)}`, { language, timeZone: zone, ackRequiresSignIn: requireSignIn });
      setLanguage(saved.language);
      setTimeZone(saved.timeZone);
      setRequireSignIn(saved.ackRequiresSignIn);
      props.onSaved();
      return t('settingsSaved');
    });
  };
  return (
    <ActionForm class="card" titleId="org-settings" title={props.org.name} help={t('settingsHelp')} action={save} submitLabel={t('save')} onSubmit={submit}>
      <SelectField id="org-language" label={t('orgLanguage')} value={language} onValue={setLanguage} options={[['pt-BR', t('orgLanguagePt')], ['en', t('orgLanguageEn')]]} />
      <TextField id="org-time-zone" label={t('orgTimeZone')} hint={t('orgTimeZoneHint')} error={invalid} value={timeZone} maxLength={64} onInput={(e) => setTimeZone((e.target as HTMLInputElement).value)} />
      <p>
        <label>
          <input id="org-ack-sign-in" type="checkbox" checked={requireSignIn} onChange={(e) => setRequireSignIn((e.target as HTMLInputElement).checked)} /> {t('ackRequiresSignIn')}
        </label>
      </p>
      <p class="muted">{t('ackRequiresSignInHint')}</p>
    </ActionForm>
  );
}
