import { useState } from 'preact/hooks';
import type { Destination, InboundSecret } from '../api.js';
import { useConsole } from '../app-context.js';
import { ConfirmAction, ErrorMessage, ShownOnce, useAction } from '../components.js';
import { Fact } from '../lists.js';
import { formatDate } from '../format.js';

/**
 * A connector destination's inbound address: where the tool posts acknowledgements and
 * resolutions, its counts and last refusal, and the owner's actions (turn on / new secret /
 * turn off). The secret appears once, like a signing secret.
 */
export function InboundSection(props: { destination: Destination; path: string; onChange: () => void }) {
  const { t, call, lang } = useConsole();
  const action = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const inbound = props.destination.inbound;
  if (!inbound) return null;
  const turnOn = () =>
    action.run(async () => {
      setSecret((await call<InboundSecret>('POST', `${props.path}/inbound`)).secret);
      props.onChange();
    });
  return (
    <section class="card" aria-labelledby="inbound-title">
      <h2 id="inbound-title">{t('inTitle')}</h2>
      <p class="muted">{t('inIntro')}</p>
      <dl class="facts">
        <Fact label={t('inState')}>
          <span class={`badge ${inbound.enabled ? 'ok' : 'warn'}`}>{inbound.enabled ? t('inOn') : t('inOff')}</span>
        </Fact>
        <Fact label={t('inUrl')}>
          <code>{inbound.url}</code>
        </Fact>
        <Fact label={t('inLastEvent')}>{formatDate(lang, inbound.lastEventAt)}</Fact>
        <Fact label={t('inApplied')}>{inbound.applied}</Fact>
        <Fact label={t('inIgnored')}>{inbound.ignored}</Fact>
        <Fact label={t('inRefused')}>{inbound.refused}</Fact>
        {inbound.lastRefusal && <Fact label={t('inLastRefusal')}>{inbound.lastRefusal}</Fact>}
      </dl>
      {/* biome-ignore lint/a11y/useSemanticElements: a named row of action buttons, not form fields */}
      <div class="actions" role="group" aria-label={t('inTitle')}>
        {inbound.enabled ? (
          <>
            <ConfirmAction label={t('inRotate')} question={t('inRotateQuestion')} onConfirm={turnOn} />
            <ConfirmAction
              danger
              label={t('inDisable')}
              question={t('inDisableQuestion')}
              onConfirm={() =>
                action.run(async () => {
                  await call('DELETE', `${props.path}/inbound`);
                  props.onChange();
                })
              }
            />
          </>
        ) : (
          <button type="button" disabled={action.busy} onClick={turnOn}>
            {t('inEnable')}
          </button>
        )}
      </div>
      <ErrorMessage error={action.error} />
      {secret && <ShownOnce title={t('inSecretTitle')} warning={t('inSecretOnce')} value={secret} onDone={() => setSecret(null)} />}
    </section>
  );
}
