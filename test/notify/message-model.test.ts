// @engine-neutral: pure message building, no database
import { describe, expect, it } from 'vitest';
import { buildNotificationMessage, notifyTexts } from '../../src/delivery/notify/index.js';
import type { DeliveryBody } from '../../src/outbox/index.js';

function body(i: number, over: Partial<DeliveryBody['alert']> = {}, event: DeliveryBody['event'] = 'alert.opened'): DeliveryBody {
  return {
    id: `del_${i}`,
    event,
    occurredAt: '2026-11-28T14:00:00.000Z',
    alert: {
      id: `alr_${String(i).padStart(3, '0')}`,
      title: `Refresh failed ${i}`,
      message: 'The refresh failed because the gateway is offline. Retry later.',
      sourceType: 'Dataset',
      sourceId: `Sales ${i}`,
      workspaceName: 'Finance',
      capacityName: 'F64',
      severity: 'error',
      status: 'open',
      acknowledged: false,
      openedAt: new Date(Date.UTC(2026, 10, 28, 14, 0, i)).toISOString(),
      resolvedAt: null,
      failureCount: 1,
      url: `https://vigia.example/alerts/alr_${i}`,
      ...over,
    },
  };
}

describe('notification message model', () => {
  it('builds one item in the organization language and time zone, with tenant, root cause and ack link', () => {
    const m = buildNotificationMessage([body(1)], { language: 'pt-BR', timeZone: 'America/Sao_Paulo' }, {
      tenants: new Map([['alr_001', 'Contoso']]),
      rootCauses: new Map([['alr_001', 'Gateway GW1 offline']]),
      ackUrls: new Map([['alr_001', 'https://vigia.example/ack/x']]),
    });
    expect(m).toMatchObject({ locale: 'pt-BR', timeZone: 'America/Sao_Paulo', update: 'opened', test: false, more: 0 });
    expect(m.items[0]).toEqual({
      alertId: 'alr_001',
      severity: 'error',
      title: 'Refresh failed 1',
      source: { tenant: 'Contoso', workspace: 'Finance', capacity: 'F64', itemType: 'Dataset', item: 'Sales 1' },
      summary: 'The refresh failed because the gateway is offline.',
      rootCause: 'Gateway GW1 offline',
      startedAt: '2026-11-28T14:00:01.000Z',
      startedAtText: '28/11/2026, 11:00 (GMT-3)',
      consoleUrl: 'https://vigia.example/alerts/alr_1',
      ackUrl: 'https://vigia.example/ack/x',
    });
    expect(notifyTexts.headline(m)).toBe('Incidente aberto: Refresh failed 1');
  });

  it('lists the first ten of a group oldest first and counts the rest', () => {
    const bodies = Array.from({ length: 23 }, (_, i) => body(23 - i));
    const m = buildNotificationMessage(bodies, { language: 'en', timeZone: 'UTC' });
    expect(m.items.map((x) => x.alertId)).toEqual(Array.from({ length: 10 }, (_, i) => `alr_${String(i + 1).padStart(3, '0')}`));
    expect(m.more).toBe(13);
    expect(notifyTexts.headline(m)).toBe('23 incidents opened');
    expect(notifyTexts.more(m.more, 'en')).toBe('and 13 more');
    expect(notifyTexts.more(m.more, 'pt-BR')).toBe('e mais 13');
    expect(m.items[0]!.startedAtText).toBe('11/28/2026, 02:00 PM (UTC)');
  });

  it('maps every lifecycle event to its update kind', () => {
    const kinds = (['alert.opened', 'alert.acknowledged', 'alert.escalated', 'alert.recovered'] as const).map(
      (e) => buildNotificationMessage([body(1, {}, e)], { language: 'en', timeZone: 'UTC' }).update,
    );
    expect(kinds).toEqual(['opened', 'acknowledged', 'escalated', 'resolved']);
  });
});
