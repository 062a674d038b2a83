import { useEffect, useState } from 'preact/hooks';
import type { Alert, Page } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { ConfirmAction, Empty, ErrorMessage, Field, Loading, Notice, useAction, useLoad, usePageTitle } from '../components.js';
import { formatDate } from '../format.js';
import { Link } from '../router.js';

/** The parts of the tenant routes' answers this page uses (see their response schemas in src/admin-api/tenant-schemas.ts). */
interface CollectorView {
  name: string;
  enabled: boolean;
  lastRunAt: string | null;
  nextRunAt: string | null;
  lastDurationMs: number | null;
  lastCalls: number | null;
  lastThrottledCalls: number | null;
  lastError: string | null;
  running: boolean;
  /** Collectors that rotate through a large tenant: last full rotation and hot/cold resources. */
  rotation: { lastFullRotationSeconds: number | null; hot: number; cold: number } | null;
}
interface TenantView {
  id: string;
  name: string;
  tenantId: string;
  mode: 'admin' | 'member';
  collectors: CollectorView[];
}
type Texts = { 'pt-BR': string; en: string };
interface CheckResult {
  ok: boolean;
  checks: Array<{ id: string; ok: boolean; title: Texts; fix: Texts | null; detail?: string }>;
}

/** Collectors change state on the server's schedule: the page re-reads them this often. */
const REFRESH_MS = 3000;

export function TenantsPage(props: { orgId: string }) {
  const { t, call, can } = useConsole();
  usePageTitle(t('tnTitle'));
  const path = orgPath(props.orgId, '/tenants');
  const list = useLoad((signal) => call<{ value: TenantView[] }>('GET', path, undefined, signal), [path]);
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

function TenantCard(props: { orgId: string; tenant: TenantView; onChanged: () => void }) {
  const { t, call, can, lang } = useConsole();
  const tn = props.tenant;
  const path = orgPath(props.orgId, `/tenants/${encodeURIComponent(tn.id)}`);
  const [check, setCheck] = useState<CheckResult | null>(null);
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
          <button type="button" disabled={checking.busy} onClick={() => checking.run(async () => setCheck(await call<CheckResult>('POST', `${path}/check`)))}>
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
      <ErrorMessage error={checking.error} />
      <ErrorMessage error={remove.error} />
      {check && (
        <section aria-label={t('tnCheckResult', { name: tn.name })} data-testid="check-result">
          <p role="status">{check.ok ? t('tnCheckOk') : t('tnCheckProblems')}</p>
          <ul class="checks">
            {check.checks.map((c) => (
              <li key={`${c.id}-${c.title.en}`} data-check={c.id} data-ok={String(c.ok)}>
                <strong>{c.ok ? t('tnOk') : t('tnMissing')}</strong> — {c.title[lang]}
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
                <th scope="row">{c.name}</th>
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
                        time: c.rotation.lastFullRotationSeconds === null ? '—' : `${num.format(c.rotation.lastFullRotationSeconds)} s`,
                        hot: num.format(c.rotation.hot),
                        cold: num.format(c.rotation.cold),
                      })
                    : '—'}
                </td>
                <td>{c.lastError ?? '—'}</td>
                <td>
                  {can('operator') && c.enabled && (
                    <button
                      type="button"
                      class="secondary"
                      disabled={run.busy}
                      aria-label={t('tnRunNowOf', { collector: c.name })}
                      onClick={() =>
                        run.run(async () => {
                          await call('POST', `${path}/collectors/${encodeURIComponent(c.name)}/run`);
                          props.onChanged();
                          return t('tnRunQueued', { collector: c.name });
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
      <TenantIncidents orgId={props.orgId} tenantName={tn.name} />
    </article>
  );
}

/** The tenant's open incidents (the monitoring core raises them with source type "Tenant"). */
function TenantIncidents(props: { orgId: string; tenantName: string }) {
  const { t, call, lang } = useConsole();
  const query = new URLSearchParams({ status: 'open', sourceType: 'Tenant', pageSize: '100' });
  const list = useLoad((signal) => call<Page<Alert>>('GET', orgPath(props.orgId, `/alerts?${query}`), undefined, signal), [props.orgId]);
  const mine = list.data?.value.filter((a) => a.sourceName === props.tenantName) ?? [];
  return (
    <section aria-label={t('tnIncidents', { name: props.tenantName })}>
      <h3>{t('tnIncidents', { name: props.tenantName })}</h3>
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && mine.length === 0 && <p class="muted">{t('tnNoIncidents')}</p>}
      {mine.length > 0 && (
        <ul>
          {mine.map((a) => (
            <li key={a.id}>
              <Link href={`/alerts/${encodeURIComponent(a.id)}`}>{a.title}</Link> · {a.severity} · {formatDate(lang, a.createdAt)}
            </li>
          ))}
        </ul>
      )}
      <p>
        <Link href="/alerts">{t('tnAllIncidents')}</Link>
      </p>
    </section>
  );
}

const lines = (s: string) =>
  s
    .split(/\r?\n/)
    .map((x) => x.trim())
    .filter(Boolean);

function ConnectForm(props: { path: string; onConnected: () => void }) {
  const { t, call } = useConsole();
  const [f, setF] = useState({ name: '', tenantId: '', clientId: '', mode: 'admin', credential: 'secret', secret: '', cert: '', key: '', workspaces: '', costScopes: '' });
  const [ep, setEp] = useState({ authorityHost: '', powerBi: '', fabric: '', arm: '' });
  const [problems, setProblems] = useState<string[]>([]);
  const create = useAction();
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.target as HTMLInputElement).value });
  const submit = (e: Event) => {
    e.preventDefault();
    const found: string[] = [];
    const required: Array<readonly [keyof typeof f, Parameters<typeof t>[0]]> = [
      ['name', 'tnName'],
      ['tenantId', 'tnTenantId'],
      ['clientId', 'tnClientId'],
      ...(f.credential === 'secret' ? ([['secret', 'tnSecret']] as const) : ([['cert', 'tnCertificatePem'], ['key', 'tnPrivateKeyPem']] as const)),
    ];
    for (const [k, label] of required) if (!f[k].trim()) found.push(t('fieldRequired', { field: t(label) }));
    setProblems(found);
    if (found.length) return;
    const endpoints = Object.fromEntries(Object.entries(ep).filter(([, v]) => v.trim()).map(([k, v]) => [k, v.trim()]));
    const workspaces = lines(f.workspaces);
    void create.run(async () => {
      const made = await call<TenantView>('POST', props.path, {
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
        <Field id="tn-name" label={t('tnName')}>
          <input id="tn-name" value={f.name} maxLength={200} onInput={set('name')} />
        </Field>
        <Field id="tn-tenant-id" label={t('tnTenantId')}>
          <input id="tn-tenant-id" value={f.tenantId} maxLength={100} onInput={set('tenantId')} />
        </Field>
        <Field id="tn-client-id" label={t('tnClientId')}>
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
          <Field id="tn-secret" label={t('tnSecret')}>
            <input id="tn-secret" type="password" autoComplete="off" value={f.secret} maxLength={1024} onInput={set('secret')} />
          </Field>
        ) : (
          <>
            <Field id="tn-cert" label={t('tnCertificatePem')}>
              <textarea id="tn-cert" rows={4} value={f.cert} onInput={set('cert')} />
            </Field>
            <Field id="tn-key" label={t('tnPrivateKeyPem')}>
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
              <input id={`tn-ep-${k}`} type="url" value={ep[k]} maxLength={2048} onInput={(e) => setEp({ ...ep, [k]: (e.target as HTMLInputElement).value })} />
            </Field>
          ))}
        </div>
      </details>
      {problems.length > 0 && (
        <ul class="error" role="alert">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {create.notice && <Notice>{create.notice}</Notice>}
      <ErrorMessage error={create.error} />
      <button type="submit" disabled={create.busy}>
        {t('tnConnect')}
      </button>
    </form>
  );
}
