/**
 * The ids of a lazy tenant's workspaces and items (src/tenant-sim/lazy-tenant.ts): each carries its
 * index, so a lookup by id is O(1), and the hash the generated figures are drawn from.
 */

/** A 32-bit integer hash (lowbias32): the same input, the same output, well spread. */
export function hash32(x: number): number {
  x = (x ^ (x >>> 16)) >>> 0;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x = (x ^ (x >>> 15)) >>> 0;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

export const hex = (n: number, width: number) => (n >>> 0).toString(16).padStart(width, '0').slice(-width);

/** Kinds of generated ids (the second group of the GUID). */
const WORKSPACE_KIND = 0x0e51;
const ITEM_KIND = 0x17e0;
/** Odd multiplier and its inverse mod 2^32: indexes become scattered ids and come back. */
const SCRAMBLE = 0x9e3779b1;
const UNSCRAMBLE = 0x0e8b2f51;

/**
 * Id codec of one lazy tenant: `tttttttt-kkkk-4ccc-8sss-00iiiiiiii` — the tenant's tag, the kind,
 * a check of the index, the item's slot in its workspace, the scrambled index. Valid GUIDs.
 */
export class LazyIds {
  constructor(readonly tag: number) {}

  private make(kind: number, index: number, slot: number): string {
    const scrambled = (Math.imul(index, SCRAMBLE) ^ this.tag) >>> 0;
    return `${hex(this.tag, 8)}-${hex(kind, 4)}-4${hex(hash32(index ^ this.tag), 3)}-${hex(0x8000 | slot, 4)}-0000${hex(scrambled, 8)}`;
  }

  workspace(index: number): string {
    return this.make(WORKSPACE_KIND, index, 0);
  }

  item(index: number, slot: number): string {
    return this.make(ITEM_KIND, index, slot);
  }

  /** The index (and slot) an id of this tenant encodes, or null for any other string. */
  parse(id: string | undefined | null): { kind: 'workspace' | 'item'; index: number; slot: number } | null {
    if (typeof id !== 'string' || id.length !== 36) return null;
    const s = id.toLowerCase();
    if (s.slice(0, 8) !== hex(this.tag, 8)) return null;
    const kind = Number.parseInt(s.slice(9, 13), 16);
    if (kind !== WORKSPACE_KIND && kind !== ITEM_KIND) return null;
    const index = Math.imul((Number.parseInt(s.slice(28, 36), 16) ^ this.tag) >>> 0, UNSCRAMBLE) >>> 0;
    const slot = Number.parseInt(s.slice(19, 23), 16) & 0x7fff;
    // The check group and the rest must be exactly what this index gives (no look-alikes).
    const again = kind === WORKSPACE_KIND ? this.workspace(index) : this.item(index, slot);
    if (again !== s) return null;
    return { kind: kind === WORKSPACE_KIND ? 'workspace' : 'item', index, slot };
  }
}
