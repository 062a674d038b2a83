import { useEffect } from 'preact/hooks';
import type { Tenant, TenantList } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { formatDate } from '../format.js';
import { ListPage, useGet } from '../lists.js';
import { MirroringLagForm } from './tenant-mirroring-lag.js';
import { ApiBudgetTable, CapShareForm } from './tenant-api-budget.js';
import { UtilizationSection } from './tenant-utilization.js';
import { FreshnessSection } from './tenant-freshness.js';
import { TenantOwnerActions } from './tenant-check.js';
import { CollectorsTable } from './tenant-collectors.js';
import { ConnectForm } from './tenant-connect.js';
import { TenantIncidents } from './tenant-incidents.js';
import { ChangesTimeline, Tabs } from './changes.js';
import { FailingCollectors, TenantDetails } from './tenant-health.js';

/** Collectors change state on the server's schedule: the page re-reads them this often. */
const REFRESH_MS = 3000;

export function TenantsPage(props: { orgId: string }) {
  const { t, can } = useConsole();
  const path = orgPath(props.orgId, '/tenants');
  const list = useGet<TenantList>(path);
  useEffect(() => {
    const timer = setInterval(list.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [list.reload]);
  return (
    <ListPage title={t('tnTitle')} list={list} empty={t('tnEmpty')} count={(d) => d.value.length} after={can('owner') && <ConnectForm path={path} onConnected={list.reload} />}>
      {(d) => d.value.map((tn) => <TenantCard key={tn.id} orgId={props.orgId} tenant={tn} onChanged={list.reload} />)}
    </ListPage>
  );
}

/**
 * One tenant connection. The monitor's own problems come first (its open Tenant incidents and the
 * collectors that fail, in plain words), then the owner's buttons; the collectors' table, the call
 * budget and rotation, and the settings are each one click away (docs/console.md, "Tenant").
 */
function TenantCard(props: { orgId: string; tenant: Tenant; onChanged: () => void }) {
  const { t } = useConsole();
  const tn = props.tenant;
  const path = orgPath(props.orgId, `/tenants/${encodeURIComponent(tn.id)}`);
  const headingId = `tenant-${tn.id}`;
  return (
    <article class="card" aria-labelledby={headingId} data-tenant={tn.name}>
      <h2 id={headingId}>{tn.name}</h2>
      <p class="muted">
        {tn.tenantId} · {tn.mode === 'admin' ? t('tnModeAdmin') : t('tnModeMember')}
      </p>
      <Tabs
        id={`tenant-${tn.id}`}
        tabs={[
          { key: 'overview', label: t('chOverviewTab'), panel: () => <TenantOverview orgId={props.orgId} tenant={tn} path={path} onChanged={props.onChanged} /> },
          { key: 'changes', label: t('chTab'), panel: () => <ChangesTimeline orgId={props.orgId} tenantId={tn.id} tenantName={tn.name} /> },
        ]}
      />
    </article>
  );
}

/** A tenant connection's overview tab: the monitor's own problems first, then the owner's buttons; tables and settings one click away. */
function TenantOverview(props: { orgId: string; tenant: Tenant; path: string; onChanged: () => void }) {
  const { t, can } = useConsole();
  const tn = props.tenant;
  const path = props.path;
  const owner = can('owner');
  return (
    <>
      <TenantIncidents orgId={props.orgId} tenantId={tn.id} tenantName={tn.name} />
      <FailingCollectors tenant={tn} />
      {owner && <TenantOwnerActions path={path} tenant={tn} onRemoved={props.onChanged} />}
      {tn.scan && <ScanProgress scan={tn.scan} />}
      <TenantDetails summary={t('thDetails')} testId="tenant-collectors">
        <CollectorsTable path={path} tenant={tn} onChanged={props.onChanged} />
        <ApiBudgetTable tenantName={tn.name} budget={tn.apiBudget} />
      </TenantDetails>
      <TenantDetails summary={t('thSettings')} testId="tenant-settings">
        {owner && <CapShareForm path={path} tenantId={tn.id} tenantName={tn.name} share={tn.capSharePercent} onSaved={props.onChanged} />}
        {owner && <MirroringLagForm path={path} tenantId={tn.id} tenantName={tn.name} lag={tn.mirroringLag} onSaved={props.onChanged} />}
        {owner && <UtilizationSection path={path} tenantId={tn.id} tenantName={tn.name} utilization={tn.utilization} onSaved={props.onChanged} />}
        <FreshnessSection path={path} tenantName={tn.name} />
      </TenantDetails>
    </>
  );
}

/** The scanner's progress: items described of those known, queued, and the last incremental and full scans. */
function ScanProgress(props: { scan: NonNullable<Tenant['scan']> }) {
  const { t, lang } = useConsole();
  const num = new Intl.NumberFormat(lang);
  const s = props.scan;
  return (
    <p data-testid="scan-progress">
      {t('tnScan', {
        described: num.format(s.described),
        known: num.format(s.known),
        queued: num.format(s.queued),
        incremental: formatDate(lang, s.lastIncrementalScanAt, t('never')),
        full: formatDate(lang, s.lastFullScanAt, t('never')),
      })}
    </p>
  );
}
