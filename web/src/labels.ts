import type { DestinationKind, ShownStatus } from './api.js';
import type { TextKey, Translate } from './i18n.js';

const KIND_KEYS: Record<DestinationKind, TextKey> = {
  webhook: 'kindWebhook',
  pagerduty: 'kindPagerduty',
  opsgenie: 'kindOpsgenie',
  jsm: 'kindJsm',
  servicenow: 'kindServicenow',
  'azure-devops': 'kindAzureDevops',
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

const HEALTH_KEYS: Record<string, TextKey> = { healthy: 'healthHealthy', failing: 'healthFailing', disabled: 'healthDisabled' };
export const healthLabel = (t: Translate, state: string): string => (HEALTH_KEYS[state] ? t(HEALTH_KEYS[state]) : state);
