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
  return (
    <div class="actions">
      {a.status === 'open' && !a.acknowledged && (
        <button
          type="button"
          disabled={action.busy}
          aria-label={`${t('acknowledge')}: ${a.title}`}
          onClick={() =>
            action.run(async () => {
              await call('POST', `${base}/acknowledge`, {});
              props.onChanged();
              return t('acknowledgedDone');
            })
          }
        >
          {t('acknowledge')}
        </button>
      )}
      {a.status === 'open' && (
        <button
          type="button"
          class="secondary"
          disabled={action.busy}
          aria-label={`${t('resolve')}: ${a.title}`}
          onClick={() =>
            action.run(async () => {
              await call('POST', `${base}/resolve`, {});
              props.onChanged();
              return t('resolvedDone');
            })
          }
        >
          {t('resolve')}
        </button>
      )}
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
