import { useEffect } from 'preact/hooks';
import { ApiFailure, type AlertDelivery, type AlertWithEvents, type Org } from '../api.js';
import { orgPath, useConsole, type Console } from '../app-context.js';
import { Empty, ErrorMessage, Loading, useLoad, usePageTitle } from '../components.js';
import { Fact, NotFound } from '../lists.js';
import { formatDate } from '../format.js';
import { eventLabel } from '../labels.js';
import { Link } from '../router.js';
import { AlertActions, AlertBadges } from './alert-actions.js';
import { DeliveryItem } from './deliveries.js';
import { WhatChangedBefore } from './alert-changes.js';
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
  const { t } = c;
  const found = useLoad(() => findAlert(c, props.alertId), [props.alertId]);
  usePageTitle(found.data?.alert.title ?? t('alertTitle'));

  // Opening an alert of another organization makes it the chosen one, so the menu follows.
  const foundOrg = found.data?.orgId;
  useEffect(() => {
    if (foundOrg && foundOrg !== c.orgId) c.chooseOrg(foundOrg);
  }, [foundOrg]);

  if (found.loading && !found.data) return <Loading />;
  if (found.error) return <ErrorMessage error={found.error} onRetry={found.reload} />;
  if (!found.data) return <NotFound text={t('alertNotFound')} back="/alerts" />;
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
      <AlertFacts alert={a} />
      <WhatChangedBefore alert={a} />
      <h2>{t('eventsTitle')}</h2>
      <AlertEvents orgId={orgId} events={a.events} deliveries={deliveries} onChanged={found.reload} />
    </section>
  );
}

/** What the alert is about and when: source, notification kind, message, workspace, capacity, times, who acknowledged. */
function AlertFacts(props: { alert: AlertWithEvents }) {
  const { t, lang } = useConsole();
  const a = props.alert;
  return (
    <dl class="facts">
      <Fact label={t('source')}>
        {sourceTypeName(lang, a.sourceType)} · {a.sourceName} <code>{a.sourceId}</code>
      </Fact>
      <Fact label={t('notificationKind')}>
        {notificationKindName(lang, a.notificationKind)} <code>{a.notificationKind}</code>
      </Fact>
      <Fact label={t('message')} class="break">
        {a.message}
      </Fact>
      {a.workspaceName && <Fact label={t('workspace')}>{a.workspaceName}</Fact>}
      {a.capacityName && <Fact label={t('capacity')}>{a.capacityName}</Fact>}
      <Fact label={t('createdAt')}>{formatDate(lang, a.createdAt)}</Fact>
      <Fact label={t('lastOccurrence')}>
        {formatDate(lang, a.lastOccurrenceAt)} ({t('occurrences')}: {a.failureCount})
      </Fact>
      {a.acknowledgedAt && (
        <Fact label={t('acknowledgedBy')}>
          {a.acknowledgedBy ?? '—'} · {formatDate(lang, a.acknowledgedAt)}
        </Fact>
      )}
      {a.resolvedAt && <Fact label={t('resolvedAt')}>{formatDate(lang, a.resolvedAt)}</Fact>}
    </dl>
  );
}

/** The alert's events, each with the deliveries made for it. */
function AlertEvents(props: { orgId: string; events: AlertWithEvents['events']; deliveries: AlertDelivery[]; onChanged: () => void }) {
  const { t, lang } = useConsole();
  if (props.events.length === 0) return <Empty>{t('eventsEmpty')}</Empty>;
  return (
    <ol class="events">
      {props.events.map((e) => {
        const mine = props.deliveries.filter((d) => d.eventId === e.id);
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
                  <DeliveryItem key={d.id} orgId={props.orgId} delivery={d} destinationName={d.destinationName} onChanged={props.onChanged} />
                ))}
              </ul>
            )}
          </li>
        );
      })}
    </ol>
  );
}
