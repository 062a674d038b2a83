/**
 * The acknowledge page (docs/notifications.md, "Acknowledge from the message"): plain
 * server-rendered HTML in the organization's language, no script (the page CSP allows none
 * inline anyway), one form whose POST is the only thing that acts. Every text from an alert is
 * escaped.
 */
import type { Language } from '../orgs/language.js';
import type { AckAlertView, AckLinkState, AckRefusal } from '../inbound/ack-link-use.js';

type Key =
  | 'title' | 'readyHeading' | 'readyText' | 'confirm' | 'doneHeading' | 'doneText' | 'view' | 'source' | 'severity' | 'opened'
  | 'signInHeading' | 'signInText' | 'signIn' | AckRefusal;

const TEXTS: Record<Language, Record<Key, string>> = {
  'pt-BR': {
    title: 'Reconhecer alerta — Vigia',
    readyHeading: 'Reconhecer este alerta?',
    readyText: 'Confirme para registrar que alguém está cuidando do incidente. Os outros destinos serão avisados.',
    confirm: 'Reconhecer',
    doneHeading: 'Alerta reconhecido',
    doneText: 'Reconhecido por {by}. Os outros destinos foram avisados.',
    view: 'Ver no Vigia',
    source: 'Origem',
    severity: 'Severidade',
    opened: 'Aberto em',
    signInHeading: 'Entre para reconhecer',
    signInText: 'Esta organização exige entrar no console do Vigia antes de reconhecer um alerta por link.',
    signIn: 'Entrar no Vigia',
    malformed: 'Este link de reconhecimento não é válido. Confira se ele foi copiado inteiro.',
    forged: 'Este link de reconhecimento não foi emitido pelo Vigia (a assinatura não confere).',
    expired: 'Este link de reconhecimento expirou (vale 24 horas). Reconheça o alerta no console do Vigia.',
    used: 'Este link de reconhecimento já foi usado. Cada link reconhece uma única vez.',
    gone: 'O alerta ou o destino deste link não existe mais.',
    'sign-in': 'Esta organização exige entrar no console do Vigia antes de reconhecer um alerta por link.',
    forbidden: 'Sua conta não tem permissão para reconhecer alertas desta organização (é preciso o papel operador).',
    'not-open': 'Este alerta já foi resolvido; não há o que reconhecer.',
    acknowledged: 'Este alerta já foi reconhecido por {by}.',
  },
  en: {
    title: 'Acknowledge alert — Vigia',
    readyHeading: 'Acknowledge this alert?',
    readyText: 'Confirm to record that someone is handling the incident. The other destinations will be told.',
    confirm: 'Acknowledge',
    doneHeading: 'Alert acknowledged',
    doneText: 'Acknowledged by {by}. The other destinations were told.',
    view: 'View in Vigia',
    source: 'Source',
    severity: 'Severity',
    opened: 'Opened at',
    signInHeading: 'Sign in to acknowledge',
    signInText: 'This organization requires signing in to the Vigia console before acknowledging an alert from a link.',
    signIn: 'Sign in to Vigia',
    malformed: 'This acknowledge link is not valid. Check that it was copied whole.',
    forged: 'This acknowledge link was not issued by Vigia (its signature does not match).',
    expired: 'This acknowledge link has expired (it works for 24 hours). Acknowledge the alert in the Vigia console.',
    used: 'This acknowledge link was already used. Each link acknowledges once.',
    gone: "This link's alert or destination no longer exists.",
    'sign-in': 'This organization requires signing in to the Vigia console before acknowledging an alert from a link.',
    forbidden: 'Your account may not acknowledge alerts of this organization (the operator role is needed).',
    'not-open': 'This alert is already resolved; there is nothing to acknowledge.',
    acknowledged: 'This alert was already acknowledged by {by}.',
  },
};

const REFUSAL_HEADING: Record<Language, string> = { 'pt-BR': 'Não foi possível reconhecer', en: 'Could not acknowledge' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function fill(text: string, by: string | null): string {
  return escapeHtml(text).replace('{by}', `<strong>${escapeHtml(by ?? '—')}</strong>`);
}

export interface PageLinks {
  /** The form's target (this page's own path). */
  action: string;
  /** The alert's page in the console, when the link named a real alert. */
  consoleUrl: string | null;
  /** The console's sign-in, coming back here. */
  signInUrl: string;
}

/** When the incident opened, in the organization's language and time zone (UTC if the zone is unknown here). */
function openedText(a: AckAlertView, language: Language): string {
  try {
    return `${new Intl.DateTimeFormat(language, { timeZone: a.timeZone, dateStyle: 'short', timeStyle: 'short' }).format(a.createdAt)} (${a.timeZone})`;
  } catch {
    return `${a.createdAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
  }
}

function alertBlock(t: Record<Key, string>, a: AckAlertView, language: Language): string {
  return `<section class="alert sev-${escapeHtml(a.severity)}" data-testid="ack-alert">
<h2>${escapeHtml(a.title)}</h2>
<dl><dt>${t.source}</dt><dd>${escapeHtml(`${a.sourceType} · ${a.sourceName}`)}</dd>
<dt>${t.severity}</dt><dd>${escapeHtml(a.severity)}</dd>
<dt>${t.opened}</dt><dd><time datetime="${a.createdAt.toISOString()}">${escapeHtml(openedText(a, language))}</time></dd></dl>
</section>`;
}

function page(language: Language, body: string): string {
  const t = TEXTS[language];
  return `<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow"><title>${t.title}</title><link rel="stylesheet" href="/ack-assets/ack.css"></head>
<body><main>
${body}
</main></body></html>`;
}

/** The page for a state; `method` tells a GET's sign-in prompt (a page to act from) from a refusal. */
export function renderAckPage(state: AckLinkState, links: PageLinks): string {
  const t = TEXTS[state.language];
  const view = links.consoleUrl ? `<p><a class="view" href="${escapeHtml(links.consoleUrl)}">${t.view}</a></p>` : '';
  if (state.kind === 'ready') {
    return page(state.language, `<h1>${t.readyHeading}</h1>
<p>${escapeHtml(t.readyText)}</p>
${alertBlock(t, state.alert, state.language)}
<form method="post" action="${escapeHtml(links.action)}"><button type="submit">${t.confirm}</button></form>
${view}`);
  }
  if (state.kind === 'done') {
    return page(state.language, `<h1 data-testid="ack-result">${t.doneHeading}</h1>
<p>${fill(t.doneText, state.by)}</p>
${alertBlock(t, state.alert, state.language)}
${view}`);
  }
  if (state.reason === 'sign-in') {
    return page(state.language, `<h1>${t.signInHeading}</h1>
<p>${escapeHtml(t.signInText)}</p>
${state.alert ? alertBlock(t, state.alert, state.language) : ''}
<p><a class="button" href="${escapeHtml(links.signInUrl)}">${t.signIn}</a></p>
${view}`);
  }
  return page(state.language, `<h1 data-testid="ack-result">${REFUSAL_HEADING[state.language]}</h1>
<p data-testid="ack-reason" data-reason="${state.reason}">${fill(t[state.reason], state.alert?.acknowledgedBy ?? null)}</p>
${state.alert ? alertBlock(t, state.alert, state.language) : ''}
${view}`);
}

/** HTTP status of each state: what a client (and a test) reads without parsing the page. */
export function ackPageStatus(state: AckLinkState, method: 'GET' | 'POST'): number {
  if (state.kind !== 'refused') return 200;
  const byReason: Record<AckRefusal, number> = {
    malformed: 400,
    forged: 403,
    expired: 410,
    used: 410,
    gone: 404,
    'sign-in': method === 'GET' ? 200 : 401,
    forbidden: 403,
    'not-open': 409,
    acknowledged: 409,
  };
  return byReason[state.reason];
}

export const ACK_CSS = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f5f6f8;color:#1c2430}
main{max-width:36rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.4rem;margin-top:0}h2{font-size:1.1rem;margin:0 0 .5rem}
.alert{border-left:4px solid #6b7280;padding:.5rem 1rem;margin:1rem 0;background:#fafafa}.alert.sev-error{border-color:#c62828}.alert.sev-info{border-color:#1565c0}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0}dt{color:#5b6472}dd{margin:0}
button,.button{display:inline-block;font-size:1rem;padding:.6rem 1.4rem;border:0;border-radius:6px;background:#1f6feb;color:#fff;cursor:pointer;text-decoration:none}
.view{color:#1f6feb}`;
