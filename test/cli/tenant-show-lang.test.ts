// @engine-neutral: no database is opened here
/**
 * `vigia tenants list|show --lang pt-BR` say every label, state and unit in Portuguese, the
 * collector's error from the server's catalog in the chosen language, and the interval a budget
 * forces when it is longer than the one asked for (issue 39, item 4).
 */
import { describe, expect, it } from 'vitest';
import { listLines, showLines, type TenantView } from '../../src/cli/tenant-show.js';

const ENGLISH = /\b(the|every|never|running|calls|failing|mode|workspaces described|queued|rotation|error|off|last run|next)\b/;

const tenant: TenantView = {
  id: 'tnt_1',
  name: 'Contoso',
  tenantId: '00000000-0000-0000-0000-000000000001',
  clientId: '00000000-0000-0000-0000-000000000002',
  credentialType: 'secret',
  mode: 'member',
  workspaces: ['ws-1'],
  costScopes: ['/subscriptions/s1'],
  endpoints: { token: 'https://login.example' },
  collectors: [
    { name: 'gateway', enabled: true, intervalSeconds: 5, effectiveIntervalSeconds: 34, lastRunAt: null, nextRunAt: null, lastCalls: 1, lastError: null, running: false, rotation: { lastFullRotationSeconds: null, hot: 2, cold: 4 } },
    {
      name: 'capacity',
      enabled: true,
      intervalSeconds: 60,
      lastRunAt: '2026-11-28T12:00:00.000Z',
      nextRunAt: '2026-11-28T12:01:00.000Z',
      lastCalls: 3,
      lastError: 'the token endpoint refused the credentials',
      lastErrorText: { 'pt-BR': 'o endpoint de token recusou as credenciais', en: 'the token endpoint refused the credentials' },
      running: false,
    },
    { name: 'costs', enabled: false, intervalSeconds: 3600, lastRunAt: null, nextRunAt: null, lastCalls: null, lastError: null, running: true },
  ],
  scan: { known: 5, described: 4, queued: 1, lastIncrementalScanAt: null, lastFullScanAt: null },
};

describe('tenants list and show in the chosen language', () => {
  it('pt-BR: no English word, the error from the catalog, the forced interval', () => {
    const lines = [...listLines([tenant], 'pt-BR'), ...showLines(tenant, 'pt-BR')];
    for (const line of lines) expect(line).not.toMatch(ENGLISH);
    const text = lines.join('\n');
    expect(text).toContain('modo membro');
    expect(lines[0]).toMatch(/^tnt_1  Contoso  membro  tenant /);
    expect(text).toContain('roda a cada 34 s (pedido: 5 s; a cota não paga mais)');
    expect(text).toContain('erro: o endpoint de token recusou as credenciais');
    expect(text).toContain('falhando: capacity');
    expect(text).toContain('costs        desligado');
    expect(text).toContain('varredura: 4 de 5 workspaces descritos, 1 na fila');
    expect(listLines([], 'pt-BR')).toEqual(['nenhuma conexão de tenant']);
  });

  it('en keeps the English words', () => {
    const text = showLines(tenant, 'en').join('\n');
    expect(text).toContain('member mode');
    expect(text).toContain('runs every 34 s (asked: 5 s; the call budget pays no more)');
    expect(text).toContain('error: the token endpoint refused the credentials');
    expect(text).toContain('rotation: first full rotation not completed yet (2 hot, 4 cold)');
  });
});
