import { useState } from 'preact/hooks';
import { DELIVERY_STATUSES, type AttemptLogEntry, type Delivery, type DeliveryDetail, type DeliveryPage } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { ErrorMessage, Notice, useAction, useFieldErrors } from '../components.js';
import { DateField, readDateField } from '../date-field.js';
import { SelectField } from '../forms.js';
import { formatDate } from '../format.js';
import { eventLabel, serverText, statusLabel } from '../labels.js';
import { DataTable, PagedList, useFilters, useGet } from '../lists.js';
import { Link } from '../router.js';

const PAGE_SIZE = 25;

/** A destination's deliveries, newest first, filtered by status and time on the server. */
export function DeliveryHistory(props: { orgId: string; destinationPath: string; version: number }) {
  const { t, lang } = useConsole();
  // `from`/`to` as typed (in the language's pattern) in the draft, as ISO instants once applied.
  const filters = useFilters({ status: '', from: '', to: '' });
  const fields = useFieldErrors<'from' | 'to'>((f) => `history-${f}`);
  const { applied, draft, page } = filters;
  const query = new URLSearchParams({ page: String(page), pageSize: String(PAGE_SIZE) });
  if (applied.status) query.set('status', applied.status);
  if (applied.from) query.set('from', applied.from);
  if (applied.to) query.set('to', applied.to);
  const list = useGet<DeliveryPage>(`${props.destinationPath}/deliveries?${query}`, [props.version]);
  const apply = (e: Event) => {
    e.preventDefault();
    const from = readDateField(t, lang, t('from'), draft.from, { withTime: true });
    const to = readDateField(t, lang, t('to'), draft.to, { withTime: true });
    const found: { from?: string; to?: string } = {};
    if (from.error) found.from = from.error;
    if (to.error) found.to = to.error;
    else if (from.iso && to.iso && to.iso <= from.iso) found.to = t('dateOrder', { field: t('to') });
    if (!fields.check(found)) return;
    filters.apply({ status: draft.status, from: from.iso ?? '', to: to.iso ?? '' });
  };

  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">{t('deliveriesTitle')}</h2>
      <form class="filters" onSubmit={apply}>
        <SelectField
          id="history-status"
          label={t('status')}
          value={draft.status}
          onValue={(v) => filters.setDraft('status', v)}
          options={[['', t('allStatuses')], ...DELIVERY_STATUSES.map((s) => [s, statusLabel(t, s)] as const)]}
        />
        <DateField id="history-from" label={t('from')} withTime value={draft.from} onValue={(v) => filters.setDraft('from', v)} error={fields.errors.from} />
        <DateField id="history-to" label={t('to')} withTime value={draft.to} onValue={(v) => filters.setDraft('to', v)} error={fields.errors.to} />
        <button type="submit" class="secondary">
          {t('filter')}
        </button>
      </form>
      <PagedList
        list={list}
        empty={t('deliveriesEmpty')}
        class="deliveries"
        label={t('deliveriesTitle')}
        page={page}
        pageSize={PAGE_SIZE}
        onPage={filters.setPage}
        item={(d) => <DeliveryItem key={d.id} orgId={props.orgId} delivery={d} onChanged={list.reload} />}
      />
    </section>
  );
}

/** One delivery: its summary, its attempt log on demand, and redelivery once it is finished. */
export function DeliveryItem(props: { orgId: string; delivery: Delivery; onChanged: () => void; destinationName?: string }) {
  const { t, lang } = useConsole();
  const d = props.delivery;
  const [log, setLog] = useState<AttemptLogEntry[] | null>(null);
  const action = useAction();
  return (
    <li class="card delivery" data-delivery-id={d.id}>
      <DeliverySummary delivery={d} destinationName={props.destinationName} />
      <DeliveryButtons orgId={props.orgId} delivery={d} destinationName={props.destinationName} action={action} log={log} onLog={setLog} onChanged={props.onChanged} />
      <ErrorMessage error={action.error} />
      {action.notice && <Notice>{action.notice}</Notice>}
      {log !== null &&
        (log.length === 0 ? (
          <p class="empty">{t('attemptLogEmpty')}</p>
        ) : (
          <DataTable
            list
            caption={t('attemptLog')}
            rows={log}
            rowKey={(a) => a.attempt}
            columns={[
              { label: t('attempt'), cell: (a) => a.attempt },
              { label: t('time'), cell: (a) => formatDate(lang, a.startedAt) },
              { label: t('status'), cell: (a) => a.statusCode ?? '—' },
              { label: t('duration'), cell: (a) => `${a.durationMs} ms` },
              { label: t('error'), cell: (a) => (a.error ? serverText(t, lang, a.error) : '—') },
            ]}
            tableClass="attempts"
          />
        ))}
    </li>
  );
}

/** The delivery's status, event, destination (on an alert's page), time, attempts, last result and its alert. */
function DeliverySummary(props: { delivery: Delivery; destinationName?: string }) {
  const { t, lang } = useConsole();
  const d = props.delivery;
  // On an alert's own page (destinationName given) the link to that alert would point to itself.
  const linkAlert = props.destinationName === undefined;
  return (
    <>
      <div class="row wrap">
        <span class={`badge status-${d.status}`}>{statusLabel(t, d.status)}</span>
        {d.test && <span class="badge">{t('testDelivery')}</span>}
        <strong>{eventLabel(t, d.event)}</strong>
        {props.destinationName && <span>→ {props.destinationName}</span>}
        <span class="muted">{formatDate(lang, d.createdAt)}</span>
      </div>
      <p class="muted">
        {t('attempts')}: {d.attempts}
        {d.lastStatusCode !== null && ` · ${t('statusCode', { code: d.lastStatusCode })}`}
        {d.lastError && ` · ${serverText(t, lang, d.lastError)}`}
        {!d.test && linkAlert && (
          <>
            {' · '}
            <Link href={`/alerts/${encodeURIComponent(d.alertId)}`}>{d.alertId}</Link>
          </>
        )}
      </p>
    </>
  );
}

/** Show (or hide) the attempt log, and redeliver once the delivery is finished. */
function DeliveryButtons(props: {
  orgId: string;
  delivery: Delivery;
  destinationName?: string;
  action: ReturnType<typeof useAction>;
  log: AttemptLogEntry[] | null;
  onLog: (log: AttemptLogEntry[] | null) => void;
  onChanged: () => void;
}) {
  const { t, call, lang } = useConsole();
  const { delivery: d, action, log } = props;
  const finished = d.status !== 'pending' && d.status !== 'waiting';
  const deliveryPath = orgPath(props.orgId, `/deliveries/${encodeURIComponent(d.id)}`);
  // What the buttons act on, unique on the page: an alert's page lists one event's deliveries to
  // several destinations at the same second, so event and time alone repeat.
  const subject = `${eventLabel(t, d.event)}${props.destinationName ? ` → ${props.destinationName}` : ''} ${formatDate(lang, d.createdAt)} (${d.id})`;
  return (
    <div class="actions">
      <button
        type="button"
        class="secondary"
        aria-expanded={log !== null}
        aria-label={`${t('showAttempts')}: ${subject}`}
        onClick={() =>
          log !== null
            ? props.onLog(null)
            : action.run(async () => {
                props.onLog((await call<DeliveryDetail>('GET', deliveryPath)).attemptLog);
              })
        }
      >
        {t('showAttempts')}
      </button>
      {finished && (
        <button
          type="button"
          class="secondary"
          disabled={action.busy}
          aria-label={`${t('redeliver')}: ${subject}`}
          onClick={() =>
            action.run(async () => {
              await call('POST', `${deliveryPath}/redeliver`);
              props.onChanged();
              return t('redelivered');
            })
          }
        >
          {t('redeliver')}
        </button>
      )}
    </div>
  );
}
