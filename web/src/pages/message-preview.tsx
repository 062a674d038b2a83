import { useState } from 'preact/hooks';
import type { MessagePreview as Preview } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { ErrorMessage, useAction } from '../components.js';

export const PREVIEW_KINDS: readonly string[] = ['teams', 'slack', 'email'];

const EVENTS = [
  ['alert.opened', 'evOpened'],
  ['alert.acknowledged', 'evAcknowledged'],
  ['alert.escalated', 'evEscalated'],
  ['alert.recovered', 'evRecovered'],
] as const;

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

/**
 * The message exactly as it will be sent (docs/notifications.md, "Preview in the console"): the
 * server renders a sample incident with the delivery's own renderers, in the organization's
 * language and time zone — the Teams card JSON, the Slack blocks, the e-mail's subject, text
 * and HTML (shown as sent, and drawn in a sandboxed frame).
 */
export function MessagePreview(props: { orgId: string; kind: string; slackButtons?: boolean }) {
  const { t, call } = useConsole();
  const [event, setEvent] = useState<string>('alert.opened');
  const [preview, setPreview] = useState<Preview | null>(null);
  const action = useAction();
  if (!PREVIEW_KINDS.includes(props.kind)) return null;
  const load = (ev: string) =>
    void action.run(async () => {
      setPreview(await call<Preview>('POST', orgPath(props.orgId, '/destinations/preview'), { kind: props.kind, event: ev, ...(props.kind === 'slack' ? { slackButtons: !!props.slackButtons } : {}) }));
    });
  return (
    <section class="card" aria-labelledby="preview-title" data-testid="message-preview">
      <h3 id="preview-title">{t('previewTitle')}</h3>
      <p class="muted">{t('previewHelp')}</p>
      <p>
        <label for="preview-event">{t('previewEvent')}</label>{' '}
        <select id="preview-event" value={event} onChange={(e) => setEvent((e.target as HTMLSelectElement).value)}>
          {EVENTS.map(([value, key]) => (
            <option key={value} value={value}>
              {t(key)}
            </option>
          ))}
        </select>{' '}
        <button type="button" class="secondary" disabled={action.busy} onClick={() => load(event)}>
          {t('previewShow')}
        </button>
      </p>
      <ErrorMessage error={action.error} />
      {preview && preview.kind === props.kind && <PreviewBody preview={preview} />}
    </section>
  );
}

function PreviewBody(props: { preview: Preview }) {
  const { t } = useConsole();
  const p = props.preview;
  if (p.email) {
    return (
      <div data-testid="preview-email">
        <p>
          <strong>{t('previewSubject')}:</strong> <span data-testid="preview-subject">{p.email.subject}</span>
        </p>
        <iframe title={t('previewHtml')} sandbox="" srcdoc={p.email.html} class="preview-frame" />
        <details>
          <summary>{t('previewHtml')}</summary>
          <pre data-testid="preview-html">{p.email.html}</pre>
        </details>
        <details open>
          <summary>{t('previewText')}</summary>
          <pre data-testid="preview-text">{p.email.text}</pre>
        </details>
      </div>
    );
  }
  return (
    <div>
      <p class="muted">
        {p.contentType} · {p.language} · {p.timeZone}
      </p>
      <pre data-testid="preview-json">{pretty(p.body ?? '')}</pre>
    </div>
  );
}
