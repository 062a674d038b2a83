import { useState } from 'preact/hooks';
import type { Tenant, TenantCheck } from '../api.js';
import { useConsole } from '../app-context.js';
import { ConfirmAction, ErrorMessage, useAction } from '../components.js';
import { CredentialsForm } from './tenant-credentials.js';

/** "Missing" is access to grant; a connection that failed or an endpoint that is busy says so (the server's `cause`). */
const CONNECTION_CAUSES = new Set(['blocked', 'tls_untrusted', 'tls_hostname', 'tls_expired', 'dns', 'refused', 'timeout', 'reset', 'other']);
function checkLabel(cause: string | undefined): 'tnMissing' | 'tnFailed' | 'tnBusy' {
  if (cause === 'throttled') return 'tnBusy';
  return cause && CONNECTION_CAUSES.has(cause) ? 'tnFailed' : 'tnMissing';
}

/**
 * The owner's buttons of a tenant connection: check its permissions (every item OK or missing,
 * with its fix, below) and remove it after a confirmation.
 */
export function TenantOwnerActions(props: { path: string; tenant: Tenant; onRemoved: () => void }) {
  const { t, call } = useConsole();
  const tn = props.tenant;
  const [check, setCheck] = useState<TenantCheck | null>(null);
  const checking = useAction();
  const remove = useAction();
  return (
    <>
      <p>
        <button type="button" disabled={checking.busy} onClick={() => checking.run(async () => setCheck(await call<TenantCheck>('POST', `${props.path}/check`)))}>
          {t('tnCheck')}
        </button>{' '}
        <ConfirmAction
          danger
          label={t('tnRemove')}
          accessibleLabel={`${t('tnRemove')}: ${tn.name}`}
          question={t('tnRemoveQuestion', { name: tn.name })}
          onConfirm={() =>
            remove.run(async () => {
              await call('DELETE', props.path);
              props.onRemoved();
            })
          }
        />
      </p>
      <CredentialsForm path={props.path} tenantId={tn.id} name={tn.name} onChecked={setCheck} />
      <ErrorMessage error={checking.error} />
      <ErrorMessage error={remove.error} />
      {check && <CheckResult tenantName={tn.name} check={check} />}
    </>
  );
}

/**
 * The result's heading names what failed: permissions only when an item lacks access; a sign-in
 * the token endpoint refused, or an endpoint Vigia could not reach (or that is busy), says so.
 */
function problemsHeading(check: TenantCheck): 'tnCheckProblems' | 'tnCheckSignInRefused' | 'tnCheckUnreachable' {
  const failed = check.checks.filter((c) => !c.ok);
  if (failed.some((c) => c.cause && REFUSALS.has(c.cause))) return 'tnCheckSignInRefused';
  if (failed.length > 0 && failed.every((c) => checkLabel(c.cause) !== 'tnMissing')) return 'tnCheckUnreachable';
  return 'tnCheckProblems';
}
const REFUSALS = new Set(['invalid_secret', 'expired_secret', 'certificate', 'application', 'tenant', 'credentials']);

export function CheckResult(props: { tenantName: string; check: TenantCheck }) {
  const { t, lang } = useConsole();
  const { check } = props;
  return (
    <section aria-label={t('tnCheckResult', { name: props.tenantName })} data-testid="check-result">
      <p role="status">{check.ok ? t('tnCheckOk') : t(problemsHeading(check))}</p>
      <ul class="checks">
        {check.checks.map((c) => (
          <li key={`${c.id}-${c.title.en}`} data-check={c.id} data-ok={String(c.ok)} data-advisory={c.advisory ? 'true' : undefined}>
            <strong>{c.ok ? t('tnOk') : c.advisory ? t('tnNotInMode') : t(checkLabel(c.cause))}</strong> — {c.title[lang]}
            {(c.detailText || c.detail) && <span class="muted"> ({c.detailText ? c.detailText[lang] : c.detail})</span>}
            {c.fix && (
              <p>
                {t('tnFix')}: {c.fix[lang]}
              </p>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
