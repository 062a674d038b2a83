import { useEffect } from 'preact/hooks';
import { ApiFailure, type AlertDelivery, type AlertWithEvents, type Org } from '../api.js';
import { orgPath, useConsole, type Console } from '../app-context.js';
import { Empty, ErrorMessage, useLoad, usePageTitle } from '../components.js';
import { formatDate } from '../format.js';
import { eventLabel } from '../labels.js';
import { Link } from '../router.js';
import { AlertActions, AlertBadges } from './alert-actions.js';
import { DeliveryItem } from './deliveries.js';
import { notificationKindName, sourceTypeName } from '../i18n-sources.js';

interface Found {
  orgId: string;
  alert: AlertWithEvents;
  deliveries: AlertDelivery[];
}

/**
 * Finds the alert's organization: the chosen one first, then the others the token sees. The
 * page is the target of the `url` in every delivery, so it may be opened before any org is chosen.
 */
async function findAlert(c: Console, alertId: string): Promise<Found | null> {
  const orgs = await c.call<Org[]>('GET', '/orgs');
  const order = [...orgs.filter((o) => o.id === c.orgId), ...orgs.filter((o) => o.id !== c.orgId)];
  for (const org of order) {
    const base = orgPath(org.id, `/alerts/${encodeURIComponent(alertId)}`);
    try {
      const alert = await c.call<Found['alert']>('GET', base);
      const deliveries = await c.call<AlertDelivery[]>('GET', `${base}/deliveries`);
      return { orgId: org.id, alert, deliveries };
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 404) continue;
      throw err;
    }
  }
  return null;
}

export function AlertPage(props: { alertId: string }) {
  const c = useConsole();
  const { t, lang } = c;
  const found = useLoad(() => findAlert(c, props.alertId), [props.alertId]);
  usePageTitle(found.data?.alert.title ?? t('alertTitle'));

  // Opening an alert of another organization makes it the chosen one, so the menu follows.
  const foundOrg = found.data?.orgId;
  useEffect(() => {
    if (foundOrg && foundOrg !== c.orgId) c.chooseOrg(foundOrg);
  }, [foundOrg]);

  if (found.loading && !found.data) return <p>{t('loading')}</p>;
  if (found.error) return <ErrorMessage error={found.error} onRetry={found.reload} />;
  if (!found.data) {
    return (
      <section>
        <p class="error" role="alert">
          {t('alertNotFound')}
        </p>
        <Link href="/alerts">{t('back')}</Link>
      </section>
    );
  }
  const { alert: a, deliveries, orgId } = found.data;
  return (
    <section>
      <p>
        <Link href="/alerts">← {t('alertsTitle')}</Link>
      </p>
      <h1>{a.title}</h1>
      <p>
        <AlertBadges alert={a} />
      </p>
      <AlertActions orgId={orgId} alert={a} onChanged={found.reload} />
      <dl class="facts">
        <dt>{t('source')}</dt>
        <dd>
          {sourceTypeName(lang, a.sourceType)} · {a.sourceName} <code>{a.sourceId}</code>
        </dd>
        <dt>{t('notificationKind')}</dt>
        <dd>
          {notificationKindName(lang, a.notificationKind)} <code>{a.notificationKind}</code>
        </dd>
        <dt>{t('message')}</dt>
        <dd class="break">{a.message}</dd>
        {a.workspaceName && (
          <>
            <dt>{t('workspace')}</dt>
            <dd>{a.workspaceName}</dd>
          </>
        )}
        {a.capacityName && (
          <>
            <dt>{t('capacity')}</dt>
            <dd>{a.capacityName}</dd>
          </>
        )}
        <dt>{t('createdAt')}</dt>
        <dd>{formatDate(lang, a.createdAt)}</dd>
        <dt>{t('lastOccurrence')}</dt>
        <dd>
          {formatDate(lang, a.lastOccurrenceAt)} ({t('occurrences')}: {a.failureCount})
        </dd>
        {a.acknowledgedAt && (
          <>
            <dt>{t('acknowledgedBy')}</dt>
            <dd>
              {a.acknowledgedBy ?? '—'} · {formatDate(lang, a.acknowledgedAt)}
            </dd>
          </>
        )}
        {a.resolvedAt && (
          <>
            <dt>{t('resolvedAt')}</dt>
            <dd>{formatDate(lang, a.resolvedAt)}</dd>
          </>
        )}
      </dl>
      <h2>{t('eventsTitle')}</h2>
      {a.events.length === 0 && <Empty>{t('eventsEmpty')}</Empty>}
      <ol class="events">
        {a.events.map((e) => {
          const mine = deliveries.filter((d) => d.eventId === e.id);
          return (
            <li key={e.id} class="event">
              <h3>
                {eventLabel(t, e.event)} <small class="muted">{formatDate(lang, e.occurredAt)}</small>
              </h3>
              {mine.length === 0 ? (
                <p class="empty">{t('noDeliveries')}</p>
              ) : (
                <ul class="deliveries">
                  {mine.map((d) => (
                    <DeliveryItem key={d.id} orgId={orgId} delivery={d} destinationName={d.destinationName} onChanged={found.reload} />
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
