import type { Alert } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { ErrorMessage, Notice, useAction } from '../components.js';

/** Acknowledge and resolve, offered only when the alert's state allows them. */
export function AlertActions(props: { orgId: string; alert: Alert; onChanged: () => void }) {
  const { t, call, can } = useConsole();
  const a = props.alert;
  const action = useAction();
  const base = orgPath(props.orgId, `/alerts/${encodeURIComponent(a.id)}`);
  if (!can('operator')) return null; // a viewer is not offered what the server would refuse
  if (a.status === 'resolved' && !action.notice) return null;
  // One button per change of state: POST `{alert}/{verb}`, then the page reloads and says it is done.
  const button = (verb: 'acknowledge' | 'resolve', done: 'acknowledgedDone' | 'resolvedDone', secondary: boolean) => (
    <button
      type="button"
      class={secondary ? 'secondary' : undefined}
      disabled={action.busy}
      aria-label={`${t(verb)}: ${a.title}`}
      onClick={() =>
        action.run(async () => {
          await call('POST', `${base}/${verb}`, {});
          props.onChanged();
          return t(done);
        })
      }
    >
      {t(verb)}
    </button>
  );
  return (
    <div class="actions">
      {a.status === 'open' && !a.acknowledged && button('acknowledge', 'acknowledgedDone', false)}
      {a.status === 'open' && button('resolve', 'resolvedDone', true)}
      <ErrorMessage error={action.error} />
      {action.notice && <Notice>{action.notice}</Notice>}
    </div>
  );
}

export function AlertBadges(props: { alert: Alert }) {
  const { t } = useConsole();
  const a = props.alert;
  return (
    <>
      <span class={`badge ${a.status === 'open' ? 'bad' : 'ok'}`}>{a.status === 'open' ? t('open') : t('resolved')}</span>{' '}
      <span class={`badge sev-${a.severity}`}>{a.severity === 'error' ? t('sevError') : t('sevInfo')}</span>{' '}
      {a.acknowledged && <span class="badge">{t('acknowledged')}</span>} {a.silenced && <span class="badge warn">{a.silenceReason === 'found at connection' ? t('foundAtConnection') : t('silenced')}</span>}{' '}
      {a.correlated && <span class="badge warn">{t('correlated')}</span>}
    </>
  );
}
