import { useState } from 'preact/hooks';
import type { Destination, SigningSecret, TestResult } from '../api.js';
import { useConsole } from '../app-context.js';
import { ConfirmAction, ErrorMessage, Notice, ShownOnce, useAction } from '../components.js';
import { serverText } from '../labels.js';
import { navigate } from '../router.js';

/**
 * A destination's buttons: Test (its steps shown below), rotate the signing secret (shown once),
 * enable/disable, delete (back to the list). `onChanged` reloads the destination; `onTested`
 * the delivery history, where the test's delivery appears.
 */
export function DestinationActions(props: { destination: Destination; path: string; onChanged: () => void; onTested: () => void }) {
  const { t, call } = useConsole();
  const d = props.destination;
  const path = props.path;
  const action = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const [test, setTest] = useState<TestResult | null>(null);
  return (
    <>
      {/* biome-ignore lint/a11y/useSemanticElements: a named row of action buttons, not form fields: a <fieldset> would add form-group semantics and its own border */}
      <div class="actions" role="group" aria-label={d.name}>
        <button
          type="button"
          disabled={action.busy}
          onClick={() =>
            action.run(async () => {
              setTest(null);
              setTest(await call<TestResult>('POST', `${path}/test`));
              props.onTested();
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
              props.onChanged();
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
    </>
  );
}

/** The Test action's steps (send; or open and close a sample incident), and when the sample must be closed by hand. */
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
