/**
 * The embedded data directory holds the database, the master key and the admin token: it is the
 * owner's alone. It is created 0700 and its files 0600 whatever the umask; a directory left looser
 * by an earlier version (or a copy) is tightened at start. PGlite writes its files 0666 regardless
 * of the umask, so the tree is tightened again once the database is open, and the process umask is
 * narrowed to owner-only (as PostgreSQL does) for the files written afterwards.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';

const GROUP_AND_OTHER = 0o077;

/** Creates the directory owner-only if missing and narrows the process umask. */
export function createPrivateDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    process.umask(process.umask() | GROUP_AND_OTHER);
  } catch {
    // Worker threads may not change the umask; the tightening below still applies.
  }
}

/**
 * Removes every group and other permission under `dir` (the directory included; symbolic links
 * are not followed). Returns how many entries were looser than owner-only.
 */
export function tightenTree(dir: string): number {
  let loosened = 0;
  const visit = (entry: string) => {
    const stat = lstatSync(entry, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) return;
    if ((stat.mode & GROUP_AND_OTHER) !== 0) {
      chmodSync(entry, stat.mode & 0o700);
      loosened++;
    }
    if (stat.isDirectory()) for (const name of readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(dir);
  return loosened;
}
