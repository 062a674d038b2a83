/** Alerts, signals and silences: response schemas of the admin API (index and rules in ../schemas.ts). */
import { str, nullableStr, instant, nullableInstant, int, bool, strings, page } from './common.js';

const alertProperties = {
  id: str,
  sourceType: str,
  sourceId: str,
  sourceName: str,
  notificationKind: str,
  severity: { type: 'string', enum: ['error', 'info'] },
  title: str,
  message: str,
  workspaceName: nullableStr,
  capacityName: nullableStr,
  status: { type: 'string', enum: ['open', 'resolved'] },
  acknowledged: bool,
  acknowledgedAt: nullableInstant,
  acknowledgedBy: nullableStr,
  createdAt: instant,
  resolvedAt: nullableInstant,
  failureCount: int,
  lastOccurrenceAt: instant,
  silenced: bool,
  silenceId: nullableStr,
  silenceReason: { type: ['string', 'null'], description: 'Why it was silenced without a silence rule: "found at connection" (a tenant’s first pass). Such an incident stays quiet until it resolves.' },
  correlated: bool,
  causeAlertIds: strings,
  suppressed: bool,
  releasedAt: nullableInstant,
  escalatedAt: nullableInstant,
  updatedAt: instant,
  url: { type: 'string', description: 'The alert’s page in the console.' },
} as const;
const alertRequired = Object.keys(alertProperties);

export const alertSchema = { title: 'Alert', type: 'object', required: alertRequired, properties: alertProperties } as const;

export const alertPageSchema = page('AlertPage', alertSchema);

export const alertWithEventsSchema = {
  title: 'AlertWithEvents',
  type: 'object',
  required: [...alertRequired, 'events', 'changes', 'likelyChange'],
  properties: {
    ...alertProperties,
    changes: {
      type: 'array',
      description: 'The changes from the tenant’s activity log joined to this incident as its likely causes, most likely first (docs/monitoring.md “What changed before it broke”). `actor` is null unless the caller’s role may see it (docs/access.md).',
      items: {
        title: 'AlertChange',
        type: 'object',
        required: ['recordId', 'activity', 'occurredAt', 'minutesBefore', 'object', 'path', 'rank', 'score', 'isSuccess', 'actor', 'attachedAt'],
        properties: {
          recordId: str,
          activity: str,
          occurredAt: instant,
          minutesBefore: int,
          object: {
            title: 'ChangeObject',
            type: 'object',
            required: ['kind', 'id', 'type', 'name'],
            properties: { kind: { type: 'string', enum: ['item', 'gateway', 'capacity', 'workspace', 'tenant'] }, id: nullableStr, type: nullableStr, name: nullableStr },
          },
          path: { type: 'string', enum: ['same', 'datasource', 'gateway', 'workspace', 'capacity', 'tenant'] },
          rank: int,
          score: { type: 'number' },
          isSuccess: { type: ['boolean', 'null'] },
          actor: nullableStr,
          attachedAt: instant,
        },
      },
    },
    likelyChange: {
      description: 'One sentence naming the most likely change, in both languages; null when none is attached.',
      anyOf: [{ type: 'null' }, { title: 'LikelyChange', type: 'object', required: ['pt-BR', 'en'], properties: { 'pt-BR': str, en: str } }],
    },
    events: {
      type: 'array',
      items: { title: 'AlertEvent', type: 'object', required: ['id', 'event', 'occurredAt', 'createdAt'], properties: { id: str, event: str, occurredAt: instant, createdAt: instant } },
    },
  },
} as const;

const signalOutcomeSchema = {
  title: 'SignalOutcome',
  type: 'object',
  required: ['alertId', 'outcome', 'silenced', 'correlated'],
  properties: { alertId: nullableStr, outcome: { type: 'string', enum: ['opened', 'reoccurred', 'recovered', 'ignored'] }, silenced: bool, correlated: bool },
} as const;

/** One signal answers one outcome; a batch an array of them, in order. */
export const signalOutcomesSchema = { anyOf: [signalOutcomeSchema, { type: 'array', items: signalOutcomeSchema }] } as const;

export const silenceSchema = {
  title: 'Silence',
  type: 'object',
  required: ['id', 'matchers', 'startsAt', 'endsAt', 'comment', 'createdAt', 'active'],
  properties: {
    id: str,
    matchers: { title: 'SilenceMatchers', type: 'object', properties: { sourceType: str, sourceId: str, notificationKind: str } },
    startsAt: instant,
    endsAt: instant,
    comment: nullableStr,
    createdAt: instant,
    active: bool,
  },
} as const;
