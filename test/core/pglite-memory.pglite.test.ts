/**
 * The embedded engine keeps PostgreSQL's shared buffers small: they live in PGlite's WebAssembly
 * memory, which never shrinks, and duplicate the operating system's file cache (see
 * bench/RESULTS.md, "Embedded engine memory").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/index.js';

describe('embedded engine memory settings', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigia-pglite-mem-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs with 16 MB of shared buffers, not the 128 MB default', async () => {
    const db = await openDatabase({ dataDir: dir, databaseUrl: undefined });
    try {
      const { rows } = await db.query<{ shared_buffers: string }>('SHOW shared_buffers');
      expect(rows[0]!.shared_buffers).toBe('16MB');
    } finally {
      await db.close();
    }
  });
});
