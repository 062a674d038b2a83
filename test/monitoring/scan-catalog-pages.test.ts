/**
 * The scan catalog's known workspaces are read in bounded pages keyed by workspace id
 * (readScannedWorkspaces): a tenant with more workspaces than a page gives every workspace
 * exactly once, in id order, over several statements of at most a page each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readScanCatalog, readScannedWorkspaces, scanCatalogVersion, SCANNER, WORKSPACE_PREFIX } from '../../src/monitoring/sources/scanner/scan-catalog.js';
import type { Reader } from '../../src/monitoring/engine/reader.js';
import { createHarness, type Harness } from './harness.js';

describe('scan catalog: known workspaces in pages', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('gives every workspace once, in order, in statements of at most a page', async () => {
    const sim = await h.sim({ seed: 361, sizes: { capacities: 1, workspaces: 1, gateways: 0 } });
    const tenant = await h.tenant(await h.org(), sim);
    await h.quiet();
    const ids = Array.from({ length: 23 }, (_, i) => `w-${String(i).padStart(3, '0')}`);
    for (const [i, id] of ids.entries()) {
      const value = { described: i % 3 !== 0, name: `WS ${i}`, capacityId: i % 2 ? 'cap-1' : null, scannedAt: null, datasets: [] };
      await h.ctx.db.query('INSERT INTO collector_state (tenant_ref, collector, key, value, updated_at) VALUES ($1, $2, $3, $4, $5)',
        [tenant.id, SCANNER, `${WORKSPACE_PREFIX}${id}`, JSON.stringify(value), h.clock.now()]);
    }
    // The scanner's other keys are not workspaces.
    await h.ctx.db.query('INSERT INTO collector_state (tenant_ref, collector, key, value, updated_at) VALUES ($1, $2, $3, $4, $5)',
      [tenant.id, SCANNER, 'cursor', JSON.stringify({ queue: [] }), h.clock.now()]);

    const sizes: number[] = [];
    const reader: Reader = {
      async query(text, params) {
        const r = await h.ctx.db.query(text, params);
        sizes.push(r.rows.length);
        return r as never;
      },
    };
    const got = await readScannedWorkspaces(reader, tenant.id, 5);
    expect(got.map((w) => w.id)).toEqual(ids);
    expect(got[0]).toEqual({ id: 'w-000', described: false, name: 'WS 0', capacityId: null });
    expect(got[1]).toEqual({ id: 'w-001', described: true, name: 'WS 1', capacityId: 'cap-1' });
    expect(sizes.length).toBe(5);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(5);

    // Default page: the same answer; and the catalog built on it knows every workspace.
    expect(await readScannedWorkspaces(h.ctx.db, tenant.id)).toEqual(got);
    const version = (await scanCatalogVersion(h.ctx.db, tenant.id))!;
    const catalog = (await readScanCatalog(h.ctx.db, tenant.id, version))!;
    expect([...catalog.workspaces.keys()]).toEqual(ids);
    expect(catalog.described.size).toBe(ids.filter((_, i) => i % 3 !== 0).length);
  });

  it('is empty while no known workspace is described', async () => {
    const sim = await h.sim({ seed: 362, sizes: { capacities: 1, workspaces: 1, gateways: 0 } });
    const tenant = await h.tenant(await h.org(), sim);
    await h.quiet();
    for (let i = 0; i < 7; i++) {
      await h.ctx.db.query('INSERT INTO collector_state (tenant_ref, collector, key, value, updated_at) VALUES ($1, $2, $3, $4, $5)',
        [tenant.id, SCANNER, `${WORKSPACE_PREFIX}x-${i}`, JSON.stringify({ described: false, name: null, capacityId: null, scannedAt: null, datasets: [] }), h.clock.now()]);
    }
    expect(await readScannedWorkspaces(h.ctx.db, tenant.id, 3)).toEqual([]);
  });
});
