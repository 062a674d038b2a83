import type { DestinationKind, ShownStatus } from './api.js';
import { formatDate } from './format.js';
import type { Lang, TextKey, Translate } from './i18n.js';

const KIND_KEYS: Record<DestinationKind, TextKey> = {
  webhook: 'kindWebhook',
  pagerduty: 'kindPagerduty',
  opsgenie: 'kindOpsgenie',
  jsm: 'kindJsm',
  servicenow: 'kindServicenow',
  'azure-devops': 'kindAzureDevops',
  teams: 'kindTeams',
  slack: 'kindSlack',
  email: 'kindEmail',
};
export const kindLabel = (t: Translate, kind: string): string => (kind in KIND_KEYS ? t(KIND_KEYS[kind as DestinationKind]) : kind);

const STATUS_KEYS: Record<ShownStatus, TextKey> = {
  pending: 'statusPending',
  waiting: 'statusWaiting',
  succeeded: 'statusSucceeded',
  failed: 'statusFailed',
  abandoned: 'statusAbandoned',
  skipped: 'statusSkipped',
};
export const statusLabel = (t: Translate, status: string): string => (status in STATUS_KEYS ? t(STATUS_KEYS[status as ShownStatus]) : status);

const EVENT_KEYS: Record<string, TextKey> = {
  'alert.opened': 'evOpened',
  'alert.acknowledged': 'evAcknowledged',
  'alert.escalated': 'evEscalated',
  'alert.recovered': 'evRecovered',
};
export const eventLabel = (t: Translate, event: string): string => (EVENT_KEYS[event] ? `${t(EVENT_KEYS[event])} (${event})` : event);

/** The server's reason for a destination it disabled itself starts so; a person's reason does not. */
const AUTO_DISABLED = /^automatically disabled: (\d+) deliveries in a row failed since (\S+)$/;

const HEALTH_KEYS: Record<string, TextKey> = { healthy: 'healthHealthy', failing: 'healthFailing' };
/** A disabled destination says who disabled it: the server (after a run of failures) or a person. */
export const healthLabel = (t: Translate, health: { state: string; disabledReason?: string | null }): string => {
  if (health.state === 'disabled') return t(health.disabledReason?.startsWith('automatically') ? 'healthDisabledAuto' : 'healthDisabledByPerson');
  return HEALTH_KEYS[health.state] ? t(HEALTH_KEYS[health.state]!) : health.state;
};

const SCHEME_KEYS: Record<string, TextKey> = { service: 'schemeService', 'service+standard': 'schemeStandard' };
/** The signature scheme as the destination form names it. */
export const schemeLabel = (t: Translate, scheme: string): string => (SCHEME_KEYS[scheme] ? t(SCHEME_KEYS[scheme]!) : scheme);

/**
 * The server's fixed texts (delivery errors, disabled reasons) are its codes: each known one is
 * shown in the console's language. A text the server composes from a receiver's or vendor's
 * answer is shown as sent.
 */
const SERVER_TEXT_KEYS: Record<string, TextKey> = {
  timeout: 'errTimeout',
  'connection failed': 'errConnection',
  'no response (timeout or connection failure)': 'errNoResponse',
  'attempt outcome unknown': 'errOutcomeUnknown',
  'destination has no url or signing secret': 'errNoUrlOrSecret',
  'disabled through the admin API': 'reasonDisabledByPerson',
};
export const serverText = (t: Translate, lang: Lang, text: string): string => {
  const key = SERVER_TEXT_KEYS[text];
  if (key) return t(key);
  const auto = AUTO_DISABLED.exec(text);
  if (auto) return t('reasonDisabledAuto', { n: Number(auto[1]), since: formatDate(lang, auto[2]!) });
  return text;
};
