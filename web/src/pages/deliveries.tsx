import { useState } from 'preact/hooks';
import { DELIVERY_STATUSES, type AttemptLogEntry, type Delivery, type DeliveryDetail, type DeliveryPage } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { Empty, ErrorMessage, Notice, useAction, useFieldErrors, useLoad } from '../components.js';
import { DateField, readDateField } from '../date-field.js';
import { formatDate } from '../format.js';
import { eventLabel, serverText, statusLabel } from '../labels.js';
import { Link } from '../router.js';

const PAGE_SIZE = 25;

/** The filters as typed (`from`/`to` in the language's pattern) and as applied (ISO instants). */
interface Filters {
  status: string;
  from: string;
  to: string;
}

/** A destination's deliveries, newest first, filtered by status and time on the server. */
export function DeliveryHistory(props: { orgId: string; destinationPath: string; version: number }) {
  const { t, call, lang } = useConsole();
  const [draft, setDraft] = useState<Filters>({ status: '', from: '', to: '' });
  const [filters, setFilters] = useState<Filters>(draft);
  const fields = useFieldErrors<'from' | 'to'>((f) => `history-${f}`);
  const [page, setPage] = useState(1);
  const query = new URLSearchParams({ page: String(page), pageSize: String(PAGE_SIZE) });
  if (filters.status) query.set('status', filters.status);
  if (filters.from) query.set('from', filters.from);
  if (filters.to) query.set('to', filters.to);
  const list = useLoad((signal) => call<DeliveryPage>('GET', `${props.destinationPath}/deliveries?${query}`, undefined, signal), [props.destinationPath, query.toString(), props.version]);
  const pages = list.data ? Math.max(1, Math.ceil(list.data.totalCount / PAGE_SIZE)) : 1;

  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">{t('deliveriesTitle')}</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          const from = readDateField(t, lang, t('from'), draft.from, { withTime: true });
          const to = readDateField(t, lang, t('to'), draft.to, { withTime: true });
          const found: { from?: string; to?: string } = {};
          if (from.error) found.from = from.error;
          if (to.error) found.to = to.error;
          else if (from.iso && to.iso && to.iso <= from.iso) found.to = t('dateOrder', { field: t('to') });
          if (!fields.check(found)) return;
          setPage(1);
          setFilters({ status: draft.status, from: from.iso ?? '', to: to.iso ?? '' });
        }}
      >
        <div class="field">
          <label for="history-status">{t('status')}</label>
          <select id="history-status" value={draft.status} onChange={(e) => {
            const value = (e.target as HTMLSelectElement).value;
            setDraft((prev) => ({ ...prev, status: value }));
          }}>
            <option value="">{t('allStatuses')}</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusLabel(t, s)}
              </option>
            ))}
          </select>
        </div>
        <DateField id="history-from" label={t('from')} withTime value={draft.from} onValue={(v) => setDraft((prev) => ({ ...prev, from: v }))} error={fields.errors.from} />
        <DateField id="history-to" label={t('to')} withTime value={draft.to} onValue={(v) => setDraft((prev) => ({ ...prev, to: v }))} error={fields.errors.to} />
        <button type="submit" class="secondary">
          {t('filter')}
        </button>
      </form>
      {list.loading && !list.data && <p>{t('loading')}</p>}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && list.data.value.length === 0 && <Empty>{t('deliveriesEmpty')}</Empty>}
      {list.data && list.data.value.length > 0 && (
        <ul class="deliveries">
          {list.data.value.map((d) => (
            <DeliveryItem key={d.id} orgId={props.orgId} delivery={d} onChanged={list.reload} />
          ))}
        </ul>
      )}
      {list.data && pages > 1 && (
        <nav class="pager" aria-label={t('deliveriesTitle')}>
          <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t('previous')}
          </button>
          <span>{t('pageOf', { page, pages })}</span>
          <button type="button" class="secondary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            {t('next')}
          </button>
        </nav>
      )}
    </section>
  );
}

/** One delivery: its summary, its attempt log on demand, and redelivery once it is finished. */
export function DeliveryItem(props: { orgId: string; delivery: Delivery; onChanged: () => void; destinationName?: string }) {
  // On an alert's own page (destinationName given) the link to that alert would point to itself.
  const linkAlert = props.destinationName === undefined;
  const { t, call, lang } = useConsole();
  const d = props.delivery;
  const [log, setLog] = useState<AttemptLogEntry[] | null>(null);
  const action = useAction();
  const finished = d.status !== 'pending' && d.status !== 'waiting';
  const deliveryPath = orgPath(props.orgId, `/deliveries/${encodeURIComponent(d.id)}`);
  // What the buttons act on, unique on the page: an alert's page lists one event's deliveries to
  // several destinations at the same second, so event and time alone repeat.
  const subject = `${eventLabel(t, d.event)}${props.destinationName ? ` → ${props.destinationName}` : ''} ${formatDate(lang, d.createdAt)} (${d.id})`;

  return (
    <li class="card delivery" data-delivery-id={d.id}>
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
      <div class="actions">
        <button
          type="button"
          class="secondary"
          aria-expanded={log !== null}
          aria-label={`${t('showAttempts')}: ${subject}`}
          onClick={() =>
            log !== null
              ? setLog(null)
              : action.run(async () => {
                  setLog((await call<DeliveryDetail>('GET', deliveryPath)).attemptLog);
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
      <ErrorMessage error={action.error} />
      {action.notice && <Notice>{action.notice}</Notice>}
      {log !== null &&
        (log.length === 0 ? (
          <p class="empty">{t('attemptLogEmpty')}</p>
        ) : (
          <table class="list attempts">
            <caption>{t('attemptLog')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('attempt')}</th>
                <th scope="col">{t('time')}</th>
                <th scope="col">{t('status')}</th>
                <th scope="col">{t('duration')}</th>
                <th scope="col">{t('error')}</th>
              </tr>
            </thead>
            <tbody>
              {log.map((a) => (
                <tr key={a.attempt}>
                  <td data-label={t('attempt')}>{a.attempt}</td>
                  <td data-label={t('time')}>{formatDate(lang, a.startedAt)}</td>
                  <td data-label={t('status')}>{a.statusCode ?? '—'}</td>
                  <td data-label={t('duration')}>{a.durationMs} ms</td>
                  <td data-label={t('error')}>{a.error ? serverText(t, lang, a.error) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </li>
  );
}
