import type { Alert, AlertPage } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { useFieldErrors, usePageTitle } from '../components.js';
import { DateField, readDateField } from '../date-field.js';
import { SelectField } from '../forms.js';
import { formatDate } from '../format.js';
import { PagedList, useFilters, useGet } from '../lists.js';
import { Link, navigate, useLocation } from '../router.js';
import { AlertActions, AlertBadges } from './alert-actions.js';
import { FoldedAlerts } from './alerts-fold.js';
import { KNOWN_SOURCE_TYPES, notificationKindName, sourceTypeName } from '../i18n-sources.js';

const PAGE_SIZE = 25;

const INITIAL_FILTERS = { status: 'open', severity: '', sourceType: '', from: '' };
type Filters = typeof INITIAL_FILTERS;

/** Open and recent incidents of the organization, newest first. */
export function AlertsPage(props: { orgId: string }) {
  const { t } = useConsole();
  usePageTitle(t('alertsTitle'));
  const filters = useFilters(INITIAL_FILTERS);
  const { applied, page } = filters;
  const query = new URLSearchParams({ page: String(page), pageSize: String(PAGE_SIZE) });
  if (applied.status) query.set('status', applied.status);
  if (applied.severity) query.set('severity', applied.severity);
  if (applied.sourceType.trim()) query.set('sourceType', applied.sourceType.trim());
  const scope = useAlertScope();
  for (const [k, v] of scope.query) query.set(k, v);
  if (applied.from) query.set('from', applied.from);
  const list = useGet<AlertPage>(orgPath(props.orgId, `/alerts?${query}`));

  return (
    <section>
      <h1>{t('alertsTitle')}</h1>
      <AlertFilters draft={filters.draft} onDraft={filters.setDraft} onApply={filters.apply} />
      {scope.said && (
        <p class="notice" data-testid="alerts-scope">
          {scope.said}{' '}
          <button type="button" class="link" onClick={() => navigate('/alerts')}>
            {t('clearFilter')}
          </button>
        </p>
      )}
      <PagedList
        list={list}
        empty={t('alertsEmpty')}
        class="alerts"
        label={t('alertsTitle')}
        page={page}
        pageSize={PAGE_SIZE}
        onPage={filters.setPage}
        item={(a) => <AlertCard key={a.id} orgId={props.orgId} alert={a} onChanged={list.reload} />}
        items={(rows) => <FoldedAlerts alerts={rows} card={(a) => <AlertCard key={a.id} orgId={props.orgId} alert={a} onChanged={list.reload} />} />}
      />
    </section>
  );
}

/**
 * What the page was opened for, from its address: the incidents of a capacity, a workspace or a
 * tenant connection (from the inventory and tenant pages), or of one monitored source (a gateway,
 * a semantic model). `query` is what to ask the API, `said` the sentence saying so (null: all).
 */
function useAlertScope(): { query: Array<[string, string]>; said: string | null } {
  const { t, lang } = useConsole();
  const { query: where } = useLocation();
  const scope = (['capacityName', 'workspaceName', 'tenant'] as const).find((k) => where.get(k));
  if (scope) {
    const what = { capacityName: 'capacity', workspaceName: 'workspace', tenant: 'tenant' } as const;
    const value = where.get(scope)!;
    const name = scope === 'tenant' ? (where.get('tenantName') ?? value) : value;
    return { query: [[scope, value]], said: t('filteredBy', { what: t(what[scope]), name }) };
  }
  const type = where.get('sourceType');
  const id = where.get('sourceId');
  if (!type || !id) return { query: [], said: null };
  return {
    query: [
      ['sourceType', type],
      ['sourceId', id],
    ],
    said: t('sourceFilter', { what: sourceTypeName(lang, type), name: where.get('sourceName') ?? id }),
  };
}

/** Status, severity, source type and start time; the time is checked before the filters apply. */
function AlertFilters(props: { draft: Filters; onDraft: (k: keyof Filters, value: string) => void; onApply: (applied: Filters) => void }) {
  const { t, lang } = useConsole();
  const fields = useFieldErrors<'from'>(() => 'alerts-from');
  const { draft, onDraft } = props;
  return (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        const from = readDateField(t, lang, t('from'), draft.from, { withTime: true });
        if (!fields.check(from.error ? { from: from.error } : {})) return;
        // Applied filters hold the instant (ISO); the draft keeps what was typed.
        props.onApply({ ...draft, from: from.iso ?? '' });
      }}
    >
      <SelectField
        id="alerts-status"
        label={t('status')}
        value={draft.status}
        onValue={(v) => onDraft('status', v)}
        options={[
          ['open', t('openAlerts')],
          ['resolved', t('resolvedAlerts')],
          ['', t('allAlerts')],
        ]}
      />
      <SelectField
        id="alerts-severity"
        label={t('severity')}
        value={draft.severity}
        onValue={(v) => onDraft('severity', v)}
        options={[
          ['', t('allSeverities')],
          ['error', t('sevError')],
          ['info', t('sevInfo')],
        ]}
      />
      <SelectField
        id="alerts-source-type"
        label={t('sourceType')}
        value={draft.sourceType}
        onValue={(v) => onDraft('sourceType', v)}
        options={[['', t('allSourceTypes')], ...KNOWN_SOURCE_TYPES.map((code) => [code, sourceTypeName(lang, code)] as const)]}
      />
      <DateField id="alerts-from" label={t('from')} withTime value={draft.from} onValue={(v) => onDraft('from', v)} error={fields.errors.from} />
      <button type="submit" class="secondary">
        {t('filter')}
      </button>
    </form>
  );
}

/** One incident of the list: its badges, its title linking to its page, what it is about, and its actions. */
function AlertCard(props: { orgId: string; alert: Alert; onChanged: () => void }) {
  const { t, lang } = useConsole();
  const a = props.alert;
  return (
    <li class="card" data-alert-id={a.id}>
      <div class="row wrap">
        <AlertBadges alert={a} />
        <Link href={`/alerts/${encodeURIComponent(a.id)}`}>
          <strong>{a.title}</strong>
        </Link>
      </div>
      <p class="muted">
        {sourceTypeName(lang, a.sourceType)} · {a.sourceName} · {notificationKindName(lang, a.notificationKind)} · {t('occurrences')}: {a.failureCount} · {t('createdAt')}:{' '}
        {formatDate(lang, a.createdAt)}
      </p>
      <AlertActions orgId={props.orgId} alert={a} onChanged={props.onChanged} />
    </li>
  );
}
