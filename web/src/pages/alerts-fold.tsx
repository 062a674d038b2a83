import type { ComponentChildren } from 'preact';
import type { Alert } from '../api.js';
import { useConsole } from '../app-context.js';

/** The silence a tenant's first pass puts on what it finds (src/monitoring/engine/first-pass.ts). */
const FOUND_AT_CONNECTION = 'found at connection';
const isFoundAtConnection = (a: Alert) => a.silenced && a.silenceReason === FOUND_AT_CONNECTION;

/**
 * A page of the alerts list with its silenced "found at connection" incidents (what a new
 * tenant's first pass found; they never page) folded under one line where the first of them
 * stands; the line opens to show them. One such incident alone is shown as it is.
 */
export function FoldedAlerts(props: { alerts: Alert[]; card: (a: Alert) => ComponentChildren }) {
  const { t } = useConsole();
  const quiet = props.alerts.filter(isFoundAtConnection);
  if (quiet.length < 2) return <>{props.alerts.map(props.card)}</>;
  const first = props.alerts.indexOf(quiet[0]!);
  return (
    <>
      {props.alerts.map((a, i) => {
        if (i === first) {
          return (
            <li key="found-at-connection" class="card folded" data-testid="found-at-connection">
              <details>
                <summary>{t('foldFoundAtConnection', { n: quiet.length })}</summary>
                <ul class="folded-alerts">{quiet.map(props.card)}</ul>
              </details>
            </li>
          );
        }
        return isFoundAtConnection(a) ? null : props.card(a);
      })}
    </>
  );
}
