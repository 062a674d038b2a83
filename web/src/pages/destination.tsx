import { useState } from 'preact/hooks';
import { ApiFailure, type Destination, type RecoverResult, type SigningSecret, type TestResult } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { ConfirmAction, ErrorMessage, Notice, ShownOnce, useAction, useFieldErrors, useLoad, usePageTitle } from '../components.js';
import { DateField, readDateField } from '../date-field.js';
import { formatDate } from '../format.js';
import { healthLabel, kindLabel, schemeLabel, serverText } from '../labels.js';
import { Link, navigate } from '../router.js';
import { successRate } from './destinations.js';
import { DeliveryHistory } from './deliveries.js';
import { InboundSection } from './destination-inbound.js';

export function DestinationPage(props: { orgId: string; destinationId: string }) {
  const { t, call, lang } = useConsole();
  const path = orgPath(props.orgId, `/destinations/${encodeURIComponent(props.destinationId)}`);
  const dest = useLoad((signal) => call<Destination>('GET', path, undefined, signal), [path]);
  usePageTitle(dest.data?.name ?? t('destinationsTitle'));
  const action = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const [test, setTest] = useState<TestResult | null>(null);
  const [historyVersion, setHistoryVersion] = useState(0);

  if (dest.error instanceof ApiFailure && dest.error.status === 404) {
    return (
      <section>
        <p class="error" role="alert">
          {t('destinationNotFound')}
        </p>
        <Link href="/destinations">{t('back')}</Link>
      </section>
    );
  }
  if (!dest.data) {
    return (
      <section>
        {dest.loading && <p>{t('loading')}</p>}
        <ErrorMessage error={dest.error} onRetry={dest.reload} />
      </section>
    );
  }
  const d = dest.data;
  const h = d.health;

  return (
    <section>
      <p>
        <Link href="/destinations">← {t('back')}</Link>
      </p>
      <h1>
        {d.name} <span class="badge">{kindLabel(t, d.kind)}</span>{' '}
        <span class={`badge ${d.enabled ? 'ok' : 'warn'}`}>{d.enabled ? t('enabled') : t('disabled')}</span>
      </h1>
      <dl class="facts">
        {d.url && (
          <>
            <dt>URL</dt>
            <dd class="break">{d.url}</dd>
          </>
        )}
        {Object.keys(d.config).length > 0 && (
          <>
            <dt>{t('config')}</dt>
            <dd class="break">
              {Object.entries(d.config)
                .map(([k, v]) => `${k}: ${String(v)}`)
                .join(' · ')}
            </dd>
          </>
        )}
        {d.signatureScheme && (
          <>
            <dt>{t('signatureScheme')}</dt>
            <dd>{schemeLabel(t, d.signatureScheme)}</dd>
          </>
        )}
        {d.credentialsSet && (
          <>
            <dt>{t('credentialsSet')}</dt>
            <dd>✓</dd>
          </>
        )}
        <dt>{t('createdAt')}</dt>
        <dd>{formatDate(lang, d.createdAt)}</dd>
      </dl>

      {h ? (
        <section class="card" aria-labelledby="health-title">
          <h2 id="health-title">{t('health')}</h2>
          <dl class="facts">
            <dt>{t('healthState')}</dt>
            <dd>
              <span class={`badge health-${h.state}`}>{healthLabel(t, h)}</span>
            </dd>
            <dt>{t('successRate24h')}</dt>
            <dd>{successRate(lang, h.successRate24h)}</dd>
            <dt>{t('consecutiveFailures')}</dt>
            <dd>{h.consecutiveFailures}</dd>
            <dt>{t('lastSuccessAt')}</dt>
            <dd>{formatDate(lang, h.lastSuccessAt)}</dd>
            <dt>{t('lastFailureAt')}</dt>
            <dd>{formatDate(lang, h.lastFailureAt)}</dd>
            {h.disabledAt && (
              <>
                <dt>{t('disabledAt')}</dt>
                <dd>
                  {formatDate(lang, h.disabledAt)} {h.disabledReason && `— ${t('disabledReason')}: ${serverText(t, lang, h.disabledReason)}`}
                </dd>
              </>
            )}
          </dl>
        </section>
      ) : (
        <p class="muted">{t('healthUnknown')}</p>
      )}
      <InboundSection destination={d} path={path} onChange={() => dest.reload()} />

      {/* biome-ignore lint/a11y/useSemanticElements: a named row of action buttons, not form fields: a <fieldset> would add form-group semantics and its own border */}
      <div class="actions" role="group" aria-label={d.name}>
        <button
          type="button"
          disabled={action.busy}
          onClick={() =>
            action.run(async () => {
              setTest(null);
              setTest(await call<TestResult>('POST', `${path}/test`));
              setHistoryVersion((n) => n + 1);
            })
          }
        >
          {action.busy ? t('testing') : t('test')}
        </button>
        {d.kind === 'webhook' && (
          <ConfirmAction
            label={t('rotateSecret')}
            question={t('rotateConfirm')}
            onConfirm={() =>
              action.run(async () => {
                setSecret((await call<SigningSecret>('POST', `${path}/rotate-secret`)).signingSecret);
              })
            }
          />
        )}
        <button
          type="button"
          class="secondary"
          disabled={action.busy}
          onClick={() =>
            action.run(async () => {
              await call('PATCH', path, { enabled: !d.enabled });
              dest.reload();
            })
          }
        >
          {d.enabled ? t('disable') : t('enable')}
        </button>
        <ConfirmAction
          danger
          label={t('deleteDestination')}
          question={t('deleteConfirm', { name: d.name })}
          onConfirm={() =>
            action.run(async () => {
              await call('DELETE', path);
              navigate('/destinations');
            })
          }
        />
      </div>
      <ErrorMessage error={action.error} />
      {action.notice && <Notice>{action.notice}</Notice>}
      {secret && <ShownOnce title={t('secretTitle')} warning={t('secretOnce')} value={secret} onDone={() => setSecret(null)} />}
      {test && <TestOutcome result={test} />}
      <RecoverForm path={path} onDone={() => setHistoryVersion((n) => n + 1)} />
      <DeliveryHistory orgId={props.orgId} destinationPath={path} version={historyVersion} />
    </section>
  );
}

function TestOutcome(props: { result: TestResult }) {
  const { t, lang } = useConsole();
  const r = props.result;
  const stepName = { send: t('stepSend'), open: t('stepOpen'), close: t('stepClose') };
  return (
    <section class={`card ${r.ok ? 'good' : 'bad'}`} aria-labelledby="test-title" role="status">
      <h2 id="test-title">
        {t('testResult')}: {r.ok ? t('testOk') : t('testFailed')}
      </h2>
      <ol class="steps">
        {r.steps.map((s, i) => (
          <li key={i}>
            <strong>{stepName[s.action] ?? s.action}</strong>: {s.ok ? t('stepOk') : t('stepFailed')}
            {s.statusCode !== undefined && ` — ${t('statusCode', { code: s.statusCode })}`}
            {s.error && ` — ${serverText(t, lang, s.error)}`}
          </li>
        ))}
      </ol>
      <p>{r.message}</p>
      {r.manualCloseRequired && (
        <p class="warning">
          <strong>{t('manualClose')}</strong>
        </p>
      )}
    </section>
  );
}

function RecoverForm(props: { path: string; onDone: () => void }) {
  const { t, call, lang } = useConsole();
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const fields = useFieldErrors<'since' | 'until'>((f) => `recover-${f}`);
  const action = useAction();
  return (
    <form
      class="card"
      noValidate
      aria-labelledby="recover-title"
      onSubmit={(e) => {
        e.preventDefault();
        const from = readDateField(t, lang, t('recoverSince'), since, { withTime: true });
        const to = readDateField(t, lang, t('recoverUntil'), until, { withTime: true });
        const found: { since?: string; until?: string } = {};
        if (from.error) found.since = from.error;
        else if (!from.iso) found.since = t('fieldRequired', { field: t('recoverSince') });
        if (to.error) found.until = to.error;
        else if (from.iso && to.iso && to.iso <= from.iso) found.until = t('dateOrder', { field: t('recoverUntil') });
        if (!fields.check(found) || !from.iso) return;
        const body: Record<string, string> = { since: from.iso };
        if (to.iso) body.until = to.iso;
        void action.run(async () => {
          try {
            const res = await call<RecoverResult>('POST', `${props.path}/recover`, body);
            props.onDone();
            return t('recovered', { n: res.requeued });
          } catch (err) {
            // Servers without endpoint recovery answer the JSON 404 of an unknown route.
            if (err instanceof ApiFailure && err.status === 404 && /route/i.test(err.message)) return t('recoverUnavailable');
            throw err;
          }
        });
      }}
    >
      <h2 id="recover-title">{t('recoverTitle')}</h2>
      <p class="muted">{t('recoverHelp')}</p>
      <div class="grid">
        <DateField id="recover-since" label={t('recoverSince')} withTime value={since} onValue={setSince} error={fields.errors.since} />
        <DateField id="recover-until" label={t('recoverUntil')} withTime value={until} onValue={setUntil} error={fields.errors.until} />
      </div>
      <ErrorMessage error={action.error} />
      {action.notice && <Notice>{action.notice}</Notice>}
      <button type="submit" class="secondary" disabled={action.busy}>
        {t('recover')}
      </button>
    </form>
  );
}
