/**
 * One process per embedded data directory. PGlite is a single-process database: two processes on
 * one directory corrupt it silently. The lock is a file created with O_EXCL holding the owner's
 * pid; a lock whose pid is no longer alive (the owner was killed with -9) is taken over. Liveness
 * is asked of the OS (signal 0), never guessed from the file's age.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'vigia.lock';

export interface LockHolder {
  pid: number;
  /** Set by a serving process once it listens, so `vigia demo` can reach it. */
  url?: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `the data directory ${dataDir} is in use by another Vigia process (pid ${holder.pid}` +
        `${holder.url ? `, serving ${holder.url}` : ''}). Only one process may open an embedded database: ` +
        `stop that process first (kill ${holder.pid}), or set VIGIA_DATA_DIR to another directory.`,
    );
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user — still alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
    return Number.isInteger(parsed.pid) && parsed.pid > 0 ? parsed : null;
  } catch {
    return null;
  }
}

/** The live process holding the directory, or null when it is free (or held by a dead pid). */
export function readLockHolder(dataDir: string): LockHolder | null {
  const holder = readHolder(path.join(dataDir, LOCK_FILE));
  return holder && isAlive(holder.pid) ? holder : null;
}

export interface DataDirLock {
  /** Records the serving address in the lock file for other commands to find. */
  publish(info: { url: string }): void;
  release(): void;
}

/** Takes the directory or throws DataDirLockedError naming the live holder. */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const file = path.join(dataDir, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid };
  for (let attempt = 0; attempt < 5; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readHolder(file);
      if (holder && holder.pid !== process.pid && isAlive(holder.pid)) throw new DataDirLockedError(dataDir, holder);
      // Stale (dead owner) or unreadable (owner died while writing): move it aside atomically,
      // so of two processes taking over at once only one removes it; then race on O_EXCL again.
      const aside = `${file}.stale-${process.pid}`;
      try {
        renameSync(file, aside);
        rmSync(aside, { force: true });
      } catch {
        // Someone else moved it first: try again.
      }
      continue;
    }
    writeSync(fd, JSON.stringify(mine));
    closeSync(fd);
    let released = false;
    return {
      publish(info) {
        if (!released) writeFileSync(file, JSON.stringify({ ...mine, ...info }), { mode: 0o600 });
      },
      release() {
        if (released) return;
        released = true;
        if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
      },
    };
  }
  const holder = readHolder(file);
  throw new DataDirLockedError(dataDir, holder ?? { pid: 0 });
}
