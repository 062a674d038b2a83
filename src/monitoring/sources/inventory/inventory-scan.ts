/**
 * Inventory's workspaces in admin mode once the scanner (scanner.ts) has described the tenant:
 * names and capacities from the scan, no listing. A workspace the scan could not describe keeps
 * what the inventory already says of it; only when one of them is new to the inventory is the
 * tenant's workspace listing read (the fallback), so nothing known goes missing.
 */
import type { Reader } from '../../engine/reader.js';
import type { Workspace } from '../../../orgs/inventory.js';
import { readScannedWorkspaces } from '../scanner/scan-catalog.js';
import type { TenantRow } from '../../connection/tenant-row.js';
import type { CapacityFact, WorkspaceFact } from '../../platform/reads.js';

/** The workspaces from the scan, or null when the scan cannot stand for the listing (the caller lists). */
export async function workspacesFromScan(q: Reader, tenant: TenantRow, inventory: Workspace[], capacities: CapacityFact[], capacityNames: Map<string, string>): Promise<WorkspaceFact[] | null> {
  if (tenant.mode !== 'admin') return null;
  const scanned = await readScannedWorkspaces(q, tenant.id);
  if (scanned.length === 0) return null;
  const previous = new Map(inventory.map((w) => [w.remoteId, w]));
  const capacityByName = new Map(capacities.map((c) => [capacityNames.get(c.id) ?? c.name, c.id]));
  const out: WorkspaceFact[] = [];
  for (const w of scanned) {
    if (w.described) {
      out.push({ id: w.id, name: w.name ?? w.id, capacityId: w.capacityId });
      continue;
    }
    const prev = previous.get(w.id);
    if (!prev) return null;
    out.push({ id: w.id, name: prev.name, capacityId: prev.capacityName ? (capacityByName.get(prev.capacityName) ?? null) : null });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}
