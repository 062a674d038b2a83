// @engine-neutral: no database is opened here
/**
 * The console shows the server's fixed texts (delivery errors, why a destination is disabled) in
 * its own language, and names a disabled destination's state after who disabled it.
 */
import { describe, expect, it } from 'vitest';
import { translator } from '../../web/src/i18n.js';
import { healthLabel, schemeLabel, serverText } from '../../web/src/labels.js';
import { GENERIC_ERRORS } from '../../src/delivery/guarded-http.js';
import { DISABLED_BY_PERSON_REASON } from '../../src/outbox/health.js';

const pt = translator('pt-BR');
const en = translator('en');

describe('server texts in the console', () => {
  it('translates the delivery errors the server sends', () => {
    expect(serverText(pt, 'pt-BR', GENERIC_ERRORS.network)).toBe('falha de conexão');
    expect(serverText(pt, 'pt-BR', GENERIC_ERRORS.timeout)).toBe('tempo esgotado (sem resposta no prazo)');
    expect(serverText(pt, 'pt-BR', 'no response (timeout or connection failure)')).toBe('sem resposta (tempo esgotado ou falha de conexão)');
    expect(serverText(en, 'en', GENERIC_ERRORS.network)).toBe('connection failed');
    // A receiver's or vendor's own words are shown as sent.
    expect(serverText(pt, 'pt-BR', 'ServiceNow refused the credentials (401)')).toBe('ServiceNow refused the credentials (401)');
  });

  it('names who disabled a destination, and gives the reason in Portuguese', () => {
    expect(healthLabel(pt, { state: 'disabled', disabledReason: DISABLED_BY_PERSON_REASON })).toBe('desativado manualmente');
    const auto = 'automatically disabled: 25 deliveries in a row failed since 2026-06-15T12:00:00Z';
    expect(healthLabel(pt, { state: 'disabled', disabledReason: auto })).toBe('desativado automaticamente');
    expect(serverText(pt, 'pt-BR', DISABLED_BY_PERSON_REASON)).toBe('desativado por uma pessoa (console ou API de administração)');
    expect(serverText(pt, 'pt-BR', auto)).toMatch(/^desativado automaticamente: 25 entregas seguidas falharam desde 15\/06\/2026/);
    expect(healthLabel(pt, { state: 'healthy' })).toBe('saudável');
  });

  it('says why an incident found at connection is silenced', () => {
    expect(pt('foundAtConnection')).toBe('silenciado: encontrado na conexão');
    expect(en('foundAtConnection')).toBe('silenced: found at connection');
  });

  it('names the signature scheme as the form does', () => {
    expect(schemeLabel(pt, 'service')).toBe('Vigia (padrão)');
    expect(schemeLabel(pt, 'service+standard')).toBe('Vigia + Standard Webhooks');
  });
});

describe('monitor names in the console language', () => {
  it('names source types, notification kinds and collectors in Portuguese and English, codes unknown to it as sent', async () => {
    const { sourceTypeName, notificationKindName, collectorName, KNOWN_SOURCE_TYPES } = await import('../../web/src/i18n-sources.js');
    expect(sourceTypeName('pt-BR', 'Dataset')).toBe('Modelo semântico');
    expect(sourceTypeName('en', 'Dataset')).toBe('Semantic model');
    expect(sourceTypeName('pt-BR', 'FabricJob')).toBe('Job do Fabric');
    expect(notificationKindName('pt-BR', 'RefreshSlow')).toBe('Atualização lenta');
    expect(notificationKindName('pt-BR', 'SomethingElse')).toBe('SomethingElse');
    expect(collectorName('pt-BR', 'datasources')).toBe('Fontes de dados');
    expect(KNOWN_SOURCE_TYPES).toEqual(['Capacity', 'Connector', 'DataFreshness', 'Dataset', 'FabricJob', 'Gateway', 'Mirroring', 'Tenant']);
  });

  it('every source type, notification kind and collector the monitor and the demo write has both names', async () => {
    const { SOURCE_TYPE_NAMES, NOTIFICATION_KIND_NAMES, COLLECTOR_NAMES } = await import('../../web/src/i18n-sources.js');
    const { COLLECTOR_NAMES: collectors } = await import('../../src/monitoring/connection/collector-names.js');
    const { readFileSync, readdirSync } = await import('node:fs');
    const sources = readdirSync('src/monitoring/sources', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const files = [
      ...sources.map((f) => `src/monitoring/sources/${f}`),
      'src/monitoring/lineage/root-causes.ts',
      'src/monitoring/engine/self-watch.ts',
      'src/monitoring/engine/first-pass.ts',
      'src/demo.ts',
      'src/demo-tenant.ts',
    ];
    const text = files.map((f) => readFileSync(f, 'utf8')).join('\n');
    const kinds = new Set([...text.matchAll(/(?:notificationKind: |_KIND = |KIND = )'([A-Z][A-Za-z]+)'/g)].map((m) => m[1]!));
    for (const m of text.matchAll(/export const [A-Z_]+ = '([A-Z][A-Za-z]+)'/g)) kinds.add(m[1]!);
    for (const k of kinds) expect(NOTIFICATION_KIND_NAMES[k] ?? SOURCE_TYPE_NAMES[k], k).toBeDefined();
    for (const st of new Set([...text.matchAll(/sourceType: '([A-Z][A-Za-z]+)'/g)].map((m) => m[1]!))) expect(SOURCE_TYPE_NAMES[st], st).toBeDefined();
    for (const c of collectors) expect(COLLECTOR_NAMES[c], c).toBeDefined();
  });

  it('a gateway named "Gateway 001" is not "Gateway Gateway 001" in its incident titles', async () => {
    const { gatewayNamed } = await import('../../src/monitoring/sources/gateway/gateway.js');
    expect(gatewayNamed('Gateway 001')).toBe('Gateway 001');
    expect(gatewayNamed('GW Matriz')).toBe('Gateway GW Matriz');
  });
});
