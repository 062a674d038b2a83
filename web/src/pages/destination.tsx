import { useState } from 'preact/hooks';
import { ApiFailure, type Destination, type RecoverResult } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { useAction, useFieldErrors, usePageTitle } from '../components.js';
import { ActionForm } from '../forms.js';
import { Fact, LoadState, NotFound, useGet } from '../lists.js';
import { DateField, readDateField } from '../date-field.js';
import { formatDate } from '../format.js';
import { healthLabel, kindLabel, schemeLabel, serverText } from '../labels.js';
import { Link } from '../router.js';
import { EnabledBadge, successRate } from './destinations.js';
import { DestinationActions } from './destination-actions.js';
import { DeliveryHistory } from './deliveries.js';
import { InboundSection } from './destination-inbound.js';
import { ChatEmailEdit } from './destination-edit.js';

export function DestinationPage(props: { orgId: string; destinationId: string }) {
  const { t } = useConsole();
  const path = orgPath(props.orgId, `/destinations/${encodeURIComponent(props.destinationId)}`);
  const dest = useGet<Destination>(path);
  usePageTitle(dest.data?.name ?? t('destinationsTitle'));
  const [historyVersion, setHistoryVersion] = useState(0);
  const historyChanged = () => setHistoryVersion((n) => n + 1);

  if (dest.error instanceof ApiFailure && dest.error.status === 404) return <NotFound text={t('destinationNotFound')} back="/destinations" />;
  if (!dest.data) {
    return (
      <section>
        <LoadState list={dest} whileReloading>
          {() => null}
        </LoadState>
      </section>
    );
  }
  const d = dest.data;
  return (
    <section>
      <p>
        <Link href="/destinations">← {t('back')}</Link>
      </p>
      <h1>
        {d.name} <span class="badge">{kindLabel(t, d.kind)}</span> <EnabledBadge enabled={d.enabled} />
      </h1>
      <DestinationFacts destination={d} />
      <HealthCard health={d.health} />
      <ChatEmailEdit orgId={props.orgId} destination={d} path={path} onSaved={dest.reload} />
      <InboundSection destination={d} path={path} onChange={() => dest.reload()} />
      <DestinationActions destination={d} path={path} onChanged={dest.reload} onTested={historyChanged} />
      <RecoverForm path={path} onDone={historyChanged} />
      <DeliveryHistory orgId={props.orgId} destinationPath={path} version={historyVersion} />
    </section>
  );
}

/** Where a destination sends and how: URL, configuration, signature, whether credentials are stored. */
function DestinationFacts(props: { destination: Destination }) {
  const { t, lang } = useConsole();
  const d = props.destination;
  const config = Object.entries(d.config);
  return (
    <dl class="facts">
      {d.url && (
        <Fact label="URL" class="break">
          {d.url}
        </Fact>
      )}
      {config.length > 0 && (
        <Fact label={t('config')} class="break">
          {config.map(([k, v]) => `${k}: ${String(v)}`).join(' · ')}
        </Fact>
      )}
      {d.signatureScheme && <Fact label={t('signatureScheme')}>{schemeLabel(t, d.signatureScheme)}</Fact>}
      {d.credentialsSet && <Fact label={t('credentialsSet')}>✓</Fact>}
      <Fact label={t('createdAt')}>{formatDate(lang, d.createdAt)}</Fact>
    </dl>
  );
}

/** The endpoint's health: state, success over 24 h, failures in a row, last success and failure, why it was disabled. */
function HealthCard(props: { health: Destination['health'] }) {
  const { t, lang } = useConsole();
  const h = props.health;
  if (!h) return <p class="muted">{t('healthUnknown')}</p>;
  return (
    <section class="card" aria-labelledby="health-title">
      <h2 id="health-title">{t('health')}</h2>
      <dl class="facts">
        <Fact label={t('healthState')}>
          <span class={`badge health-${h.state}`}>{healthLabel(t, h)}</span>
        </Fact>
        <Fact label={t('successRate24h')}>{successRate(lang, h.successRate24h)}</Fact>
        <Fact label={t('consecutiveFailures')}>{h.consecutiveFailures}</Fact>
        <Fact label={t('lastSuccessAt')}>{formatDate(lang, h.lastSuccessAt)}</Fact>
        <Fact label={t('lastFailureAt')}>{formatDate(lang, h.lastFailureAt)}</Fact>
        {h.disabledAt && (
          <Fact label={t('disabledAt')}>
            {formatDate(lang, h.disabledAt)} {h.disabledReason && `— ${t('disabledReason')}: ${serverText(t, lang, h.disabledReason)}`}
          </Fact>
        )}
      </dl>
    </section>
  );
}

function RecoverForm(props: { path: string; onDone: () => void }) {
  const { t, call, lang } = useConsole();
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const fields = useFieldErrors<'since' | 'until'>((f) => `recover-${f}`);
  const action = useAction();
  const submit = () => {
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
  };
  return (
    <ActionForm class="card" titleId="recover-title" title={t('recoverTitle')} help={t('recoverHelp')} action={action} submitLabel={t('recover')} submitClass="secondary" onSubmit={submit}>
      <div class="grid">
        <DateField id="recover-since" label={t('recoverSince')} withTime value={since} onValue={setSince} error={fields.errors.since} />
        <DateField id="recover-until" label={t('recoverUntil')} withTime value={until} onValue={setUntil} error={fields.errors.until} />
      </div>
    </ActionForm>
  );
}
