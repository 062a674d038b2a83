// @engine-neutral: no database is opened here
/**
 * Which refresh results are new since the last run (pure): first sight, the entries above the
 * remembered one, a remembered one that left the 60-entry history, running refreshes that
 * finish later (also after a newer one finished), states that are not final; and the Portuguese
 * explanation of the common error codes.
 */
import { describe, expect, it } from 'vitest';
import { explainRefreshError, refreshFailureMessage } from '../../src/monitoring/sources/refreshes/refresh-errors.js';
import { newResults, type RefreshEntry } from '../../src/monitoring/sources/refreshes/refresh-history.js';

const at = (minute: number) => new Date(Date.UTC(2026, 5, 15, 12, minute)).toISOString();
const r = (id: string, minute: number, status: RefreshEntry['status']): RefreshEntry => ({ requestId: id, startTime: at(minute), status });
const ids = (list: RefreshEntry[]) => list.map((x) => `${x.requestId}:${x.status}`);

describe('refresh history: new results', () => {
  it('first sight: only the newest finished result; a running one above it is remembered', () => {
    const { results, next } = newResults([r('e', 50, 'Unknown'), r('d', 40, 'Failed'), r('c', 30, 'Failed'), r('b', 20, 'Completed')], undefined);
    expect(ids(results)).toEqual(['d:Failed']);
    expect(next).toEqual({ last: { requestId: 'd', startTime: at(40) }, running: ['e'] });
    expect(newResults([], undefined)).toEqual({ results: [], next: { last: null, running: [] } });
  });

  it('the entries above the remembered one, oldest first; nothing new twice', () => {
    const history = [r('f', 60, 'Completed'), r('e', 50, 'Failed'), r('d', 40, 'Failed'), r('c', 30, 'Completed')];
    const first = newResults(history, { last: { requestId: 'c', startTime: at(30) }, running: [] });
    expect(ids(first.results)).toEqual(['d:Failed', 'e:Failed', 'f:Completed']);
    expect(newResults(history, first.next).results).toEqual([]);
  });

  it('the remembered one left the history: every entry that started at or after it is new', () => {
    const history = [r('z', 90, 'Failed'), r('y', 80, 'Completed')];
    expect(ids(newResults(history, { last: { requestId: 'gone', startTime: at(80) }, running: [] }).results)).toEqual(['y:Completed', 'z:Failed']);
  });

  it('a running refresh is counted once when it finishes, even after a newer one finished first', () => {
    const c0 = { last: { requestId: 'a', startTime: at(10) }, running: [] };
    const s1 = newResults([r('b', 20, 'Unknown'), r('a', 10, 'Completed')], c0);
    expect(s1.results).toEqual([]);
    expect(s1.next).toEqual({ last: c0.last, running: ['b'] });
    const s2 = newResults([r('c', 30, 'Failed'), r('b', 20, 'InProgress'), r('a', 10, 'Completed')], s1.next);
    expect(ids(s2.results)).toEqual(['c:Failed']);
    expect(s2.next.running).toEqual(['b']);
    const s3 = newResults([r('c', 30, 'Failed'), r('b', 20, 'Failed'), r('a', 10, 'Completed')], s2.next);
    expect(ids(s3.results)).toEqual(['b:Failed']);
    expect(s3.next).toEqual({ last: { requestId: 'c', startTime: at(30) }, running: [] });
    expect(newResults([r('c', 30, 'Failed'), r('b', 20, 'Failed'), r('a', 10, 'Completed')], s3.next).results).toEqual([]);
  });

  it('admin mode sees only lastRefresh: a new one is new, the same one is not', () => {
    const c = { last: { requestId: 'a', startTime: at(10) }, running: [] };
    expect(newResults([r('a', 10, 'Completed')], c).results).toEqual([]);
    expect(ids(newResults([r('b', 10, 'Failed')], c).results)).toEqual(['b:Failed']);
  });
});

describe('refresh errors in Portuguese and English', () => {
  const code = (c: string) => explainRefreshError(JSON.stringify({ errorCode: c, errorDescription: 'x' }));
  it('maps the common families and keeps the code', () => {
    expect(code('ModelRefreshFailed_CredentialsNotSpecified').explanation['pt-BR']).toContain('credenciais');
    expect(code('DM_GWPipeline_Client_GatewayUnreachable').explanation['pt-BR']).toContain('gateway');
    expect(code('DM_GWPipeline_Gateway_DataSourceAccessError').explanation['pt-BR']).toContain('fonte de dados');
    expect(code('Timeout').explanation['pt-BR']).toContain('tempo limite');
    expect(code('ModelRefreshFailed_OutOfMemory').explanation['pt-BR']).toContain('memória');
    expect(code('ModelRefresh_ShortMessage_ProcessingError').explanation['pt-BR']).toContain('processar');
    expect(code('Whatever_New')).toEqual({ code: 'Whatever_New', explanation: { 'pt-BR': expect.stringContaining('não reconhece'), en: expect.stringContaining('does not recognise') } });
    expect(explainRefreshError('not json')).toEqual({ code: null, explanation: { 'pt-BR': expect.stringContaining('sem detalhes'), en: expect.stringContaining('without error details') } });
    expect(code('ModelRefreshFailed_CredentialsNotSpecified').explanation.en).toContain('credentials');
    expect(code('Timeout').explanation.en).toContain('time limit');
    const message = refreshFailureMessage('Vendas', null, code('Timeout'));
    expect(message['pt-BR']).toMatch(/^A atualização do modelo semântico Vendas falhou\. .* Código do erro: Timeout\.$/);
    expect(message.en).toMatch(/^The refresh of semantic model Vendas failed\. .* Error code: Timeout\.$/);
  });
});
