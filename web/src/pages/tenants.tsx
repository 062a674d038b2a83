import { useEffect, useState } from 'preact/hooks';
import type { AlertPage, Tenant, TenantCheck, TenantList } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { ConfirmAction, Empty, ErrorMessage, Field, Loading, Notice, useAction, useFieldErrors, useLoad, usePageTitle } from '../components.js';
import { formatDate } from '../format.js';
import { Link } from '../router.js';
import { MirroringLagForm } from './tenant-mirroring-lag.js';
import { ApiBudgetTable, CapShareForm } from './tenant-api-budget.js';
import { UtilizationSection } from './tenant-utilization.js';
import { CredentialsForm } from './tenant-credentials.js';
import { FreshnessSection } from './tenant-freshness.js';
import { collectorName } from '../i18n-sources.js';
import { serverText } from '../labels.js';

/** Collectors change state on the server's schedule: the page re-reads them this often. */
const REFRESH_MS = 3000;

/** "Missing" is access to grant; a connection that failed or an endpoint that is busy says so (the server's `cause`). */
const CONNECTION_CAUSES = new Set(['blocked', 'tls_untrusted', 'tls_hostname', 'tls_expired', 'dns', 'refused', 'timeout', 'reset', 'other']);
function checkLabel(cause: string | undefined): 'tnMissing' | 'tnFailed' | 'tnBusy' {
  if (cause === 'throttled') return 'tnBusy';
  return cause && CONNECTION_CAUSES.has(cause) ? 'tnFailed' : 'tnMissing';
}

export function TenantsPage(props: { orgId: string }) {
  const { t, call, can } = useConsole();
  usePageTitle(t('tnTitle'));
  const path = orgPath(props.orgId, '/tenants');
  const list = useLoad((signal) => call<TenantList>('GET', path, undefined, signal), [path]);
  useEffect(() => {
    const timer = setInterval(list.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [list.reload]);
  const tenants = list.data?.value;
  return (
    <section>
      <h1>{t('tnTitle')}</h1>
      {list.loading && !list.data && <Loading />}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {tenants && tenants.length === 0 && <Empty>{t('tnEmpty')}</Empty>}
      {tenants?.map((tn) => (
        <TenantCard key={tn.id} orgId={props.orgId} tenant={tn} onChanged={list.reload} />
      ))}
      {can('owner') && <ConnectForm path={path} onConnected={list.reload} />}
    </section>
  );
}

function TenantCard(props: { orgId: string; tenant: Tenant; onChanged: () => void }) {
  const { t, call, can, lang } = useConsole();
  const tn = props.tenant;
  const path = orgPath(props.orgId, `/tenants/${encodeURIComponent(tn.id)}`);
  const [check, setCheck] = useState<TenantCheck | null>(null);
  const checking = useAction();
  const run = useAction();
  const remove = useAction();
  const num = new Intl.NumberFormat(lang);
  const headingId = `tenant-${tn.id}`;
  return (
    <article class="card" aria-labelledby={headingId} data-tenant={tn.name}>
      <h2 id={headingId}>{tn.name}</h2>
      <p class="muted">
        {tn.tenantId} · {tn.mode === 'admin' ? t('tnModeAdmin') : t('tnModeMember')}
      </p>
      {can('owner') && (
        <p>
          <button type="button" disabled={checking.busy} onClick={() => checking.run(async () => setCheck(await call<TenantCheck>('POST', `${path}/check`)))}>
            {t('tnCheck')}
          </button>{' '}
          <ConfirmAction
            danger
            label={t('tnRemove')}
            accessibleLabel={`${t('tnRemove')}: ${tn.name}`}
            question={t('tnRemoveQuestion', { name: tn.name })}
            onConfirm={() =>
              remove.run(async () => {
                await call('DELETE', path);
                props.onChanged();
              })
            }
          />
        </p>
      )}
      {can('owner') && <CredentialsForm path={path} tenantId={tn.id} name={tn.name} onChecked={setCheck} />}
      <ErrorMessage error={checking.error} /><ErrorMessage error={remove.error} />
      {check && (
        <section aria-label={t('tnCheckResult', { name: tn.name })} data-testid="check-result">
          <p role="status">{check.ok ? t('tnCheckOk') : t('tnCheckProblems')}</p>
          <ul class="checks">
            {check.checks.map((c) => (
              <li key={`${c.id}-${c.title.en}`} data-check={c.id} data-ok={String(c.ok)}>
                <strong>{c.ok ? t('tnOk') : t(checkLabel(c.cause))}</strong> — {c.title[lang]}
                {c.detail && <span class="muted"> ({c.detail})</span>}
                {c.fix && (
                  <p>
                    {t('tnFix')}: {c.fix[lang]}
                  </p>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      {run.notice && <Notice>{run.notice}</Notice>}
      <ErrorMessage error={run.error} />
      <div class="table-wrap">
        <table class="list">
          <caption>{t('tnCollectors', { name: tn.name })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('tnCollector')}</th>
              <th scope="col">{t('tnEnabled')}</th>
              <th scope="col">{t('tnLastRun')}</th>
              <th scope="col">{t('tnNextRun')}</th>
              <th scope="col">{t('tnDuration')}</th>
              <th scope="col">{t('tnCalls')}</th>
              <th scope="col">{t('tnThrottled')}</th>
              <th scope="col">{t('tnRotation')}</th>
              <th scope="col">{t('tnLastError')}</th>
              <th scope="col">
                <span class="sr-only">{t('tnRunNow')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tn.collectors.map((c) => (
              <tr key={c.name} data-collector={c.name}>
                <th scope="row">
                  {collectorName(lang, c.name)} <code class="muted">{c.name}</code>
                </th>
                <td>{c.enabled ? t('tnYes') : t('tnNo')}</td>
                <td data-testid="last-run" data-value={c.lastRunAt ?? ''}>
                  {c.running ? t('tnRunning') : formatDate(lang, c.lastRunAt, t('never'))}
                </td>
                <td>{formatDate(lang, c.nextRunAt)}</td>
                <td>{c.lastDurationMs === null ? '—' : `${num.format(c.lastDurationMs)} ms`}</td>
                <td>{c.lastCalls === null ? '—' : num.format(c.lastCalls)}</td>
                <td>{c.lastThrottledCalls === null ? '—' : num.format(c.lastThrottledCalls)}</td>
                <td data-testid="rotation">
                  {c.rotation
                    ? t('tnRotationValue', {
                        // Nothing taking turns: every resource every run; else the last full rotation, once one completed.
                        time:
                          c.rotation.cold === 0
                            ? t('tnRotationEveryRun')
                            : c.rotation.lastFullRotationSeconds === null
                              ? t('tnRotationPending')
                              : `${num.format(c.rotation.lastFullRotationSeconds)} s`,
                        hot: num.format(c.rotation.hot),
                        cold: num.format(c.rotation.cold),
                      })
                    : '—'}
                  {c.rotation?.catalog && (
                    // freshness: its catalog's pass over the workspaces, read in slices beside the models' rotation.
                    <div class="muted" data-testid="catalog-rotation">
                      {t('tnCatalogRotation', {
                        time:
                          c.rotation.catalog.lastFullRotationSeconds === null
                            ? t('tnRotationPending')
                            : `${num.format(c.rotation.catalog.lastFullRotationSeconds)} s`,
                        workspaces: num.format(c.rotation.catalog.cold),
                      })}
                    </div>
                  )}
                </td>
                <td>{c.lastError ? serverText(t, lang, c.lastError) : '—'}</td>
                <td>
                  {can('operator') && c.enabled && (
                    <button
                      type="button"
                      class="secondary"
                      disabled={run.busy}
                      aria-label={t('tnRunNowOf', { collector: collectorName(lang, c.name) })}
                      onClick={() =>
                        run.run(async () => {
                          await call('POST', `${path}/collectors/${encodeURIComponent(c.name)}/run`);
                          props.onChanged();
                          return t('tnRunQueued', { collector: collectorName(lang, c.name) });
                        })
                      }
                    >
                      {t('tnRunNow')}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ApiBudgetTable tenantName={tn.name} budget={tn.apiBudget} />
      {can('owner') && <CapShareForm path={path} tenantId={tn.id} tenantName={tn.name} share={tn.capSharePercent} onSaved={props.onChanged} />}
      {tn.scan && (
        <p data-testid="scan-progress">
          {t('tnScan', {
            described: num.format(tn.scan.described),
            known: num.format(tn.scan.known),
            queued: num.format(tn.scan.queued),
            incremental: formatDate(lang, tn.scan.lastIncrementalScanAt, t('never')),
            full: formatDate(lang, tn.scan.lastFullScanAt, t('never')),
          })}
        </p>
      )}
      {can('owner') && <MirroringLagForm path={path} tenantId={tn.id} tenantName={tn.name} lag={tn.mirroringLag} onSaved={props.onChanged} />}
      {can('owner') && <UtilizationSection path={path} tenantId={tn.id} tenantName={tn.name} utilization={tn.utilization} onSaved={props.onChanged} />}
      <FreshnessSection path={path} tenantName={tn.name} />
      <TenantIncidents orgId={props.orgId} tenantId={tn.id} tenantName={tn.name} />
    </article>
  );
}

/**
 * The monitor's own incidents about this connection (source type "Tenant", source id the
 * connection's id), said to be exactly that, and a link to every open incident of the tenant
 * (the alerts list filtered by the connection), with their count.
 */
function TenantIncidents(props: { orgId: string; tenantId: string; tenantName: string }) {
  const { t, call, lang } = useConsole();
  const own = new URLSearchParams({ status: 'open', sourceType: 'Tenant', sourceId: props.tenantId, pageSize: '100' });
  const all = new URLSearchParams({ status: 'open', tenant: props.tenantId, pageSize: '1' });
  const list = useLoad(
    async (signal) => {
      const [mine, every] = await Promise.all([
        call<AlertPage>('GET', orgPath(props.orgId, `/alerts?${own}`), undefined, signal),
        call<AlertPage>('GET', orgPath(props.orgId, `/alerts?${all}`), undefined, signal),
      ]);
      return { mine: mine.value, total: every.totalCount };
    },
    [props.orgId, props.tenantId],
  );
  const mine = list.data?.mine ?? [];
  const href = `/alerts?${new URLSearchParams({ tenant: props.tenantId, tenantName: props.tenantName })}`;
  return (
    <section aria-label={t('tnIncidents', { name: props.tenantName })} data-testid="tenant-incidents">
      <h3>{t('tnIncidents', { name: props.tenantName })}</h3>
      <p class="muted">{t('tnIncidentsHelp')}</p>
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && mine.length === 0 && <p class="muted">{t('tnNoIncidents')}</p>}
      {mine.length > 0 && (
        <ul>
          {mine.map((a) => (
            <li key={a.id}>
              <Link href={`/alerts/${encodeURIComponent(a.id)}`}>{a.title}</Link> · {a.severity === 'error' ? t('sevError') : t('sevInfo')} · {formatDate(lang, a.createdAt)}
            </li>
          ))}
        </ul>
      )}
      {list.data && (
        <p>
          <Link href={href} data-testid="tenant-all-incidents">
            {t('tnAllIncidents', { name: props.tenantName, n: list.data.total })}
          </Link>
        </p>
      )}
    </section>
  );
}

const lines = (s: string) =>
  s
    .split(/\r?\n/)
    .map((x) => x.trim())
    .filter(Boolean);

/** The connect form's required fields and their controls. */
const FIELD_IDS = { name: 'tn-name', tenantId: 'tn-tenant-id', clientId: 'tn-client-id', secret: 'tn-secret', cert: 'tn-cert', key: 'tn-key' } as const;

function ConnectForm(props: { path: string; onConnected: () => void }) {
  const { t, call } = useConsole();
  const [f, setF] = useState({ name: '', tenantId: '', clientId: '', mode: 'admin', credential: 'secret', secret: '', cert: '', key: '', workspaces: '', costScopes: '' });
  const [ep, setEp] = useState({ authorityHost: '', powerBi: '', fabric: '', arm: '' });
  const fields = useFieldErrors<keyof typeof FIELD_IDS>((k) => FIELD_IDS[k]);
  const create = useAction();
  const set = (k: keyof typeof f) => (e: Event) => {
    const value = (e.target as HTMLInputElement).value;
    setF((prev) => ({ ...prev, [k]: value }));
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const found: Partial<Record<keyof typeof FIELD_IDS, string>> = {};
    const required: Array<readonly [keyof typeof f, Parameters<typeof t>[0]]> = [
      ['name', 'tnName'],
      ['tenantId', 'tnTenantId'],
      ['clientId', 'tnClientId'],
      ...(f.credential === 'secret' ? ([['secret', 'tnSecret']] as const) : ([['cert', 'tnCertificatePem'], ['key', 'tnPrivateKeyPem']] as const)),
    ];
    for (const [k, label] of required) if (!f[k].trim()) found[k as keyof typeof FIELD_IDS] = t('fieldRequired', { field: t(label) });
    if (!fields.check(found)) return;
    const endpoints = Object.fromEntries(Object.entries(ep).filter(([, v]) => v.trim()).map(([k, v]) => [k, v.trim()]));
    const workspaces = lines(f.workspaces);
    void create.run(async () => {
      const made = await call<Tenant>('POST', props.path, {
        name: f.name.trim(),
        tenantId: f.tenantId.trim(),
        clientId: f.clientId.trim(),
        mode: f.mode,
        credentials: f.credential === 'secret' ? { clientSecret: f.secret } : { certificatePem: f.cert, privateKeyPem: f.key },
        ...(workspaces.length ? { workspaces } : {}),
        costScopes: lines(f.costScopes),
        ...(Object.keys(endpoints).length ? { endpoints } : {}),
      });
      // The credential leaves the page with the request: the form forgets it.
      setF({ ...f, secret: '', cert: '', key: '', name: '' });
      props.onConnected();
      return t('tnConnected', { name: made.name });
    });
  };
  return (
    <form class="card" noValidate onSubmit={submit} aria-labelledby="connect-tenant">
      <h2 id="connect-tenant">{t('tnConnect')}</h2>
      <div class="grid">
        <Field id="tn-name" label={t('tnName')} error={fields.errors.name}>
          <input id="tn-name" value={f.name} maxLength={200} onInput={set('name')} />
        </Field>
        <Field id="tn-tenant-id" label={t('tnTenantId')} error={fields.errors.tenantId}>
          <input id="tn-tenant-id" value={f.tenantId} maxLength={100} onInput={set('tenantId')} />
        </Field>
        <Field id="tn-client-id" label={t('tnClientId')} error={fields.errors.clientId}>
          <input id="tn-client-id" value={f.clientId} maxLength={100} onInput={set('clientId')} />
        </Field>
      </div>
      <fieldset>
        <legend>{t('tnMode')}</legend>
        {(['admin', 'member'] as const).map((m) => (
          <label key={m} class="check">
            <input type="radio" name="tn-mode" value={m} checked={f.mode === m} onChange={set('mode')} />
            {m === 'admin' ? t('tnModeAdmin') : t('tnModeMember')}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>{t('tnCredential')}</legend>
        {(['secret', 'certificate'] as const).map((c) => (
          <label key={c} class="check">
            <input type="radio" name="tn-credential" value={c} checked={f.credential === c} onChange={set('credential')} />
            {c === 'secret' ? t('tnSecret') : t('tnCertificate')}
          </label>
        ))}
        {f.credential === 'secret' ? (
          <Field id="tn-secret" label={t('tnSecret')} error={fields.errors.secret}>
            <input id="tn-secret" type="password" autoComplete="off" value={f.secret} maxLength={1024} onInput={set('secret')} />
          </Field>
        ) : (
          <>
            <Field id="tn-cert" label={t('tnCertificatePem')} error={fields.errors.cert}>
              <textarea id="tn-cert" rows={4} value={f.cert} onInput={set('cert')} />
            </Field>
            <Field id="tn-key" label={t('tnPrivateKeyPem')} error={fields.errors.key}>
              <textarea id="tn-key" rows={4} autoComplete="off" value={f.key} onInput={set('key')} />
            </Field>
          </>
        )}
      </fieldset>
      <Field id="tn-workspaces" label={t('tnWorkspaces')}>
        <textarea id="tn-workspaces" rows={2} value={f.workspaces} onInput={set('workspaces')} />
      </Field>
      <Field id="tn-cost-scopes" label={t('tnCostScopes')}>
        <textarea id="tn-cost-scopes" rows={2} value={f.costScopes} onInput={set('costScopes')} />
      </Field>
      <details>
        <summary>{t('tnEndpoints')}</summary>
        <div class="grid">
          {(
            [
              ['authorityHost', 'tnAuthority'],
              ['powerBi', 'tnPowerBi'],
              ['fabric', 'tnFabric'],
              ['arm', 'tnArm'],
            ] as const
          ).map(([k, label]) => (
            <Field key={k} id={`tn-ep-${k}`} label={t(label)}>
              <input id={`tn-ep-${k}`} type="url" value={ep[k]} maxLength={2048} onInput={(e) => {
            const value = (e.target as HTMLInputElement).value;
            setEp((prev) => ({ ...prev, [k]: value }));
          }} />
            </Field>
          ))}
        </div>
      </details>
      {create.notice && <Notice>{create.notice}</Notice>}
      <ErrorMessage error={create.error} />
      <button type="submit" disabled={create.busy}>
        {t('tnConnect')}
      </button>
    </form>
  );
}
