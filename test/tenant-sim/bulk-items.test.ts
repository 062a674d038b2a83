// @engine-neutral: the tenant simulator alone, no database
/**
 * The large-tenant sizes of the benchmarks (`modelsPerWorkspace`, `pipelinesPerWorkspace`): the
 * counts asked for, and everything else exactly as the default sizes generate it — the extra
 * items come from a random stream of their own, after the generated ones.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIZES, generateTenant } from '../../src/tenant-sim/generate.js';

const base = { seed: 5, tenantId: '00000000-0000-0000-0000-000000000005', now: Date.parse('2026-06-15T12:00:00Z') };

describe('tenant simulator: bulk semantic models and pipelines', () => {
  it('adds the models and pipelines asked for and leaves the generated tenant as it was', () => {
    const plain = generateTenant({ ...base, sizes: { ...DEFAULT_SIZES, workspaces: 50 } });
    const bulk = generateTenant({ ...base, sizes: { ...DEFAULT_SIZES, workspaces: 50, modelsPerWorkspace: 20, pipelinesPerWorkspace: 5 } });
    const items = bulk.workspaces.flatMap((w) => w.items);
    const plainItems = plain.workspaces.flatMap((w) => w.items);
    const extraModels = items.filter((i) => i.type === 'SemanticModel').length - plainItems.filter((i) => i.type === 'SemanticModel').length;
    const extraPipelines = items.filter((i) => i.type === 'DataPipeline').length - plainItems.filter((i) => i.type === 'DataPipeline').length;
    expect(extraModels).toBe(50 * 19);
    expect(extraPipelines).toBe(50 * 5);
    // Everything generated before stays: the first two items of each workspace, gateways, capacities, costs.
    const trimmed = { ...bulk, workspaces: bulk.workspaces.map((w) => ({ ...w, items: w.items.slice(0, 2) })) };
    expect(trimmed).toEqual(plain);
    // Every extra item is unique and belongs to its workspace.
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    for (const w of bulk.workspaces) expect(w.items.every((i) => i.workspaceId === w.id)).toBe(true);
  });

  it('the default sizes add nothing (1 model, 0 extra pipelines per workspace)', () => {
    expect(DEFAULT_SIZES).toMatchObject({ modelsPerWorkspace: 1, pipelinesPerWorkspace: 0 });
    const a = generateTenant({ ...base, sizes: DEFAULT_SIZES });
    expect(a.workspaces.every((w) => w.items.length === 2)).toBe(true);
  });
});
