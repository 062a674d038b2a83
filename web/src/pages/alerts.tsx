import { useState } from 'preact/hooks';
import type { AlertPage } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { Empty, ErrorMessage, Loading, useFieldErrors, useLoad, usePageTitle } from '../components.js';
import { DateField, readDateField } from '../date-field.js';
import { formatDate } from '../format.js';
import { Link, navigate, useLocation } from '../router.js';
import { AlertActions, AlertBadges } from './alert-actions.js';
import { KNOWN_SOURCE_TYPES, notificationKindName, sourceTypeName } from '../i18n-sources.js';

const PAGE_SIZE = 25;

interface Filters {
  status: string;
  severity: string;
  sourceType: string;
  from: string;
}

/** Open and recent incidents of the organization, newest first. */
export function AlertsPage(props: { orgId: string }) {
  const { t, call, lang } = useConsole();
  usePageTitle(t('alertsTitle'));
  const [draft, setDraft] = useState<Filters>({ status: 'open', severity: '', sourceType: '', from: '' });
  const [filters, setFilters] = useState<Filters>(draft);
  const fields = useFieldErrors<'from'>(() => 'alerts-from');
  const [page, setPage] = useState(1);
  const query = new URLSearchParams({ page: String(page), pageSize: String(PAGE_SIZE) });
  if (filters.status) query.set('status', filters.status);
  if (filters.severity) query.set('severity', filters.severity);
  if (filters.sourceType.trim()) query.set('sourceType', filters.sourceType.trim());
  // The inventory pages link here with the capacity or workspace whose incidents to list.
  const { query: where } = useLocation();
  const scope = (['capacityName', 'workspaceName', 'tenant'] as const).find((k) => where.get(k));
  if (scope) query.set(scope, where.get(scope)!);
  const scopeWhat = { capacityName: 'capacity', workspaceName: 'workspace', tenant: 'tenant' } as const;
  // …or with one monitored source (a gateway, a semantic model): its type and id.
  const source = where.get('sourceId') && where.get('sourceType') ? { type: where.get('sourceType')!, id: where.get('sourceId')!, name: where.get('sourceName') ?? where.get('sourceId')! } : null;
  if (source) {
    query.set('sourceType', source.type);
    query.set('sourceId', source.id);
  }
  if (filters.from) query.set('from', filters.from);
  const list = useLoad((signal) => call<AlertPage>('GET', orgPath(props.orgId, `/alerts?${query}`), undefined, signal), [props.orgId, query.toString()]);
  const pages = list.data ? Math.max(1, Math.ceil(list.data.totalCount / PAGE_SIZE)) : 1;

  return (
    <section>
      <h1>{t('alertsTitle')}</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          const from = readDateField(t, lang, t('from'), draft.from, { withTime: true });
          if (!fields.check(from.error ? { from: from.error } : {})) return;
          setPage(1);
          // Applied filters hold the instant (ISO); the draft keeps what was typed.
          setFilters({ ...draft, from: from.iso ?? '' });
        }}
      >
        <div class="field">
          <label for="alerts-status">{t('status')}</label>
          <select id="alerts-status" value={draft.status} onChange={(e) => {
            const value = (e.target as HTMLSelectElement).value;
            setDraft((prev) => ({ ...prev, status: value }));
          }}>
            <option value="open">{t('openAlerts')}</option>
            <option value="resolved">{t('resolvedAlerts')}</option>
            <option value="">{t('allAlerts')}</option>
          </select>
        </div>
        <div class="field">
          <label for="alerts-severity">{t('severity')}</label>
          <select id="alerts-severity" value={draft.severity} onChange={(e) => {
            const value = (e.target as HTMLSelectElement).value;
            setDraft((prev) => ({ ...prev, severity: value }));
          }}>
            <option value="">{t('allSeverities')}</option>
            <option value="error">{t('sevError')}</option>
            <option value="info">{t('sevInfo')}</option>
          </select>
        </div>
        <div class="field">
          <label for="alerts-source-type">{t('sourceType')}</label>
          <select id="alerts-source-type" value={draft.sourceType} onChange={(e) => {
            const value = (e.target as HTMLSelectElement).value;
            setDraft((prev) => ({ ...prev, sourceType: value }));
          }}>
            <option value="">{t('allSourceTypes')}</option>
            {KNOWN_SOURCE_TYPES.map((code) => (
              <option key={code} value={code}>
                {sourceTypeName(lang, code)}
              </option>
            ))}
          </select>
        </div>
        <DateField id="alerts-from" label={t('from')} withTime value={draft.from} onValue={(v) => setDraft((prev) => ({ ...prev, from: v }))} error={fields.errors.from} />
        <button type="submit" class="secondary">
          {t('filter')}
        </button>
      </form>
      {(scope || source) && (
        <p class="notice" data-testid="alerts-scope">
          {scope
            ? t('filteredBy', { what: t(scopeWhat[scope]), name: scope === 'tenant' ? (where.get('tenantName') ?? where.get(scope)!) : where.get(scope)! })
            : t('sourceFilter', { what: sourceTypeName(lang, source!.type), name: source!.name })}{' '}
          <button type="button" class="link" onClick={() => navigate('/alerts')}>
            {t('clearFilter')}
          </button>
        </p>
      )}
      {list.loading && !list.data && <Loading />}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && list.data.value.length === 0 && <Empty>{t('alertsEmpty')}</Empty>}
      {list.data && list.data.value.length > 0 && (
        <ul class="alerts">
          {list.data.value.map((a) => (
            <li key={a.id} class="card" data-alert-id={a.id}>
              <div class="row wrap">
                <AlertBadges alert={a} />
                <Link href={`/alerts/${encodeURIComponent(a.id)}`}>
                  <strong>{a.title}</strong>
                </Link>
              </div>
              <p class="muted">
                {sourceTypeName(lang, a.sourceType)} · {a.sourceName} · {notificationKindName(lang, a.notificationKind)} · {t('occurrences')}: {a.failureCount} · {t('createdAt')}: {formatDate(lang, a.createdAt)}
              </p>
              <AlertActions orgId={props.orgId} alert={a} onChanged={list.reload} />
            </li>
          ))}
        </ul>
      )}
      {list.data && pages > 1 && (
        <nav class="pager" aria-label={t('alertsTitle')}>
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
