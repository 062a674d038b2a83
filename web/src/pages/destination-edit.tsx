import { useState } from 'preact/hooks';
import type { Destination } from '../api.js';
import { useConsole } from '../app-context.js';
import { useAction } from '../components.js';
import { ActionForm, TextField } from '../forms.js';
import { MessagePreview, PREVIEW_KINDS } from './message-preview.js';

/**
 * Editing a Teams, Slack or e-mail destination (docs/notifications.md): its name, the group
 * window (every one of these kinds groups openings), the recipients; a new webhook URL (with the Slack app's signing secret) replaces the
 * stored credentials, which are never shown. Then the message preview, and for Slack the
 * interactivity Request URL to give the Slack app.
 */
export function ChatEmailEdit(props: { orgId: string; destination: Destination; path: string; onSaved: () => void }) {
  const { t, call } = useConsole();
  const d = props.destination;
  const config = (d.config ?? {}) as { recipients?: string[]; groupWaitSeconds?: number };
  const [name, setName] = useState(d.name);
  const [recipients, setRecipients] = useState((config.recipients ?? []).join(', '));
  const [wait, setWait] = useState(config.groupWaitSeconds === undefined ? '' : String(config.groupWaitSeconds));
  const [webhookUrl, setWebhookUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const save = useAction();
  if (!PREVIEW_KINDS.includes(d.kind)) return null;
  const submit = () => {
    if (wait.trim() && !/^\d{1,4}$/.test(wait.trim())) return setInvalid(t('fieldInteger', { field: t('groupWaitSeconds') }));
    if (secret && !webhookUrl.trim()) return setInvalid(t('editNeedsUrl'));
    setInvalid(null);
    const body: Record<string, unknown> = { name: name.trim() };
    // An empty window field leaves the default (30 s): the stored value is dropped.
    const groupWindow = wait.trim() ? { groupWaitSeconds: Number(wait.trim()) } : {};
    if (d.kind === 'email') {
      const kept = Object.fromEntries(Object.entries(config).filter(([k]) => k !== 'groupWaitSeconds'));
      body.config = { ...kept, recipients: recipients.split(/[,;\n]/).map((s) => s.trim()).filter(Boolean), ...groupWindow };
    } else body.config = groupWindow;
    if (webhookUrl.trim()) body.credentials = { webhookUrl: webhookUrl.trim(), ...(secret ? { appSigningSecret: secret } : {}) };
    void save.run(async () => {
      await call('PATCH', props.path, body);
      setWebhookUrl('');
      setSecret('');
      props.onSaved();
      return t('settingsSaved');
    });
  };
  const input = (set: (v: string) => void) => (e: Event) => set((e.target as HTMLInputElement).value);
  return (
    <>
      <ActionForm class="card" titleId="edit-destination" title={t('editDestination')} action={save} submitLabel={t('save')} onSubmit={submit} testId="edit-destination">
        {invalid && (
          <p class="error" role="alert">
            {invalid}
          </p>
        )}
        <TextField id="edit-name" label={t('name')} value={name} maxLength={200} onInput={input(setName)} />
        {d.kind === 'email' && <TextField id="edit-recipients" label={t('recipients')} value={recipients} rows={2} onInput={input(setRecipients)} />}
        <TextField id="edit-wait" label={t('groupWaitSeconds')} value={wait} inputMode="numeric" onInput={input(setWait)} />
        {d.kind !== 'email' && (
          <TextField id="edit-webhook" label={t(d.kind === 'teams' ? 'teamsWebhookUrl' : 'slackWebhookUrl')} hint={t('editKeepsUrl')} type="password" autoComplete="off" value={webhookUrl} onInput={input(setWebhookUrl)} />
        )}
        {d.kind === 'slack' && <TextField id="edit-secret" label={t('slackSigningSecret')} type="password" autoComplete="off" value={secret} onInput={input(setSecret)} />}
      </ActionForm>
      {d.slackRequestUrl && (
        <p class="card">
          {/* The server builds it from its public address: behind a proxy the browser's origin is not what Slack must call. */}
          {t('slackRequestUrl')}: <code data-testid="slack-request-url">{d.slackRequestUrl}</code>
        </p>
      )}
      <MessagePreview orgId={props.orgId} kind={d.kind} />
    </>
  );
}
