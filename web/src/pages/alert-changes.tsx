import type { AlertWithEvents } from '../api.js';
import { useConsole } from '../app-context.js';
import { Empty } from '../components.js';
import { formatDate } from '../format.js';
import { PATH_KEY } from './changes.js';

/** "12 min", "2 h", "3 h 5 min" (the server's sentence writes spans the same way). */
function span(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${h} h` : `${h} h ${minutes % 60} min`;
}

/**
 * The alert page's "O que mudou antes" / "What changed before": the sentence naming the most
 * likely change, then the changes joined to the incident, most likely first, with how long
 * before the incident each happened, how it reaches the incident's object and — for roles that
 * may see it — who made it.
 */
export function WhatChangedBefore(props: { alert: AlertWithEvents }) {
  const { t, lang } = useConsole();
  const a = props.alert;
  return (
    <section data-testid="what-changed-before" aria-labelledby="what-changed-before">
      <h2 id="what-changed-before">{t('chBeforeTitle')}</h2>
      {a.likelyChange && <p class="likely-change">{a.likelyChange[lang]}</p>}
      {a.changes.length === 0 ? (
        <Empty>{t('chBeforeEmpty')}</Empty>
      ) : (
        <ol class="events">
          {a.changes.map((c) => (
            <li key={c.recordId} class="event" data-change={c.recordId}>
              <strong>
                <code>{c.activity}</code>
              </strong>{' '}
              {c.object.name ?? c.object.id ?? ''} · {t('chMinutesBefore', { span: span(c.minutesBefore) })}{' '}
              <small class="muted">
                {formatDate(lang, c.occurredAt)} · {t('chPath', { path: t(PATH_KEY[c.path]) })}
                {c.actor ? ` · ${t('chBy', { actor: c.actor })}` : ''}
              </small>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
