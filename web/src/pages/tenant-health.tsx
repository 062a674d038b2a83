import type { ComponentChildren } from 'preact';
import type { Tenant } from '../api.js';
import { useConsole } from '../app-context.js';
import { formatDate } from '../format.js';
import { collectorName } from '../i18n-sources.js';
import { serverText } from '../labels.js';

/**
 * The collectors that fail, in plain words (what cannot be read, the error in the console's
 * language where it has one, when it last worked), or one line saying they all work. It sits at
 * the top of the tenant's card, beside the monitor's own incidents; the table of every collector
 * is one click away (TenantDetails).
 */
export function FailingCollectors(props: { tenant: Tenant }) {
  const { t, lang } = useConsole();
  const enabled = props.tenant.collectors.filter((c) => c.enabled);
  const failing = enabled.filter((c) => c.lastError !== null);
  if (failing.length === 0) {
    const waiting = enabled.filter((c) => c.lastRunAt === null).length;
    return (
      <p data-testid="collectors-ok" class="ok">
        {waiting > 0 ? t('thCollectorsWaiting', { n: waiting }) : t('thCollectorsOk', { n: enabled.length })}
      </p>
    );
  }
  return (
    <section aria-label={t('thFailingTitle')} data-testid="failing-collectors">
      <h3>{t('thFailingTitle')}</h3>
      <ul>
        {failing.map((c) => (
          <li key={c.name} data-failing={c.name}>
            {t('thFailing', { collector: collectorName(lang, c.name), error: c.lastErrorText ? c.lastErrorText[lang] : serverText(t, lang, c.lastError!) })}{' '}
            <span class="muted">{c.lastSuccessAt ? t('thFailingSince', { at: formatDate(lang, c.lastSuccessAt) }) : t('thFailingNever')}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A part of the tenant's card one click away: a disclosure whose summary names what it holds. */
export function TenantDetails(props: { summary: string; testId: string; children: ComponentChildren }) {
  return (
    <details class="tenant-details" data-testid={props.testId}>
      <summary>{props.summary}</summary>
      {props.children}
    </details>
  );
}
