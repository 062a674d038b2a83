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

  it('names the signature scheme as the form does', () => {
    expect(schemeLabel(pt, 'service')).toBe('Vigia (padrão)');
    expect(schemeLabel(pt, 'service+standard')).toBe('Vigia + Standard Webhooks');
  });
});
