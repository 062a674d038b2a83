// @engine-neutral: no database is opened here
/**
 * The committed vendor contracts (contracts/*.json) are what the descriptions give: where the
 * vendors' descriptions are at hand (the repository root's sibling shared/vendor-specs, or
 * VIGIA_VENDOR_SPECS), the contracts are derived again and must be byte-identical; without them,
 * each committed file must still name its source repository, commit and license.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACTS_DIR, CONTRACT_SET, defaultSpecsDir, deriveContracts } from '../../scripts/derive-contracts.mjs';
import { loadContract, matchOperation, validateOperation } from '../../src/contracts/index.js';

const specsDir = defaultSpecsDir();
const haveSpecs = existsSync(path.join(specsDir, 'README.md'));

describe('vendor contracts', () => {
  it('are what the published descriptions give (re-derived when the descriptions are here)', () => {
    const committed = readdirSync(CONTRACTS_DIR).filter((f) => f.endsWith('.json')).sort();
    expect(committed).toEqual(CONTRACT_SET.map((c) => c.file).sort());
    for (const file of committed) {
      const c = JSON.parse(readFileSync(path.join(CONTRACTS_DIR, file), 'utf8'));
      expect(c.sources.length, file).toBeGreaterThan(0);
      for (const s of c.sources) {
        if (s.notes) {
          // Written from our own notes (no vendor file): the notes' exact content is pinned.
          expect(s.notesSha256, file).toMatch(/^[0-9a-f]{64}$/);
          expect(s.files.length, file).toBeGreaterThan(0);
          continue;
        }
        expect(s.repository, file).toMatch(/^[\w.-]+\/[\w.-]+$/);
        expect(s.license, file).toBeTruthy();
        expect(s.files.length, file).toBeGreaterThan(0);
        const commits = s.commit ? [s.commit] : Object.values(s.fileCommits ?? {});
        expect(commits.length, file).toBeGreaterThan(0);
        for (const commit of commits) expect(commit, file).toMatch(/^[0-9a-f]{7,40}$/);
      }
      expect(Object.keys(c.paths).length, file).toBeGreaterThan(0);
    }
    if (!haveSpecs) {
      console.warn(`contracts: drift check needs the vendors' descriptions at ${specsDir} (or VIGIA_VENDOR_SPECS); checked provenance only`);
      return;
    }
    const derived = deriveContracts(specsDir);
    for (const [file, text] of Object.entries(derived)) {
      expect(readFileSync(path.join(CONTRACTS_DIR, file), 'utf8'), `contracts/${file} differs: run node scripts/derive-contracts.mjs`).toBe(text);
    }
  });

  it('match Azure scopes that span segments and hold the api-version', () => {
    const arm = loadContract('azure-resource-manager');
    const m = matchOperation(arm, 'POST', '/subscriptions/s1/resourceGroups/rg1/providers/Microsoft.CostManagement/query');
    expect(m?.operation.operationId).toBe('Query_Usage');
    expect(m?.pathParams.scope).toBe('subscriptions/s1/resourceGroups/rg1');
    const body = { type: 'ActualCost', timeframe: 'Custom', timePeriod: { from: '2026-01-01', to: '2026-01-31' }, dataset: { granularity: 'Daily' } };
    expect(validateOperation(arm, m!, new URLSearchParams('api-version=2025-03-01'), body)).toEqual([]);
    expect(validateOperation(arm, m!, new URLSearchParams('api-version=2023-03-01'), body)).toEqual(['api-version must be 2025-03-01, got 2023-03-01']);
    expect(validateOperation(arm, m!, new URLSearchParams('api-version=2025-03-01'), { ...body, type: 'Bogus' }).join()).toMatch(/body.type/);
  });
});
