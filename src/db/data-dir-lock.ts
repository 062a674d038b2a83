/**
 * One process per embedded data directory. PGlite is a single-process database: two processes on
 * one directory corrupt it silently. The lock is a file created exclusively, holding the owner's
 * pid (and start time); a lock whose pid is no longer alive (the owner was killed with -9) is taken over. Liveness
 * is asked of the OS (signal 0), never guessed from the file's age.
 */
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'vigia.lock';

export interface LockHolder {
  pid: number;
  /** The owner's start time (Linux), to tell it from a later process given the same pid. */
  started?: string;
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

/**
 * Linux: the process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat). With
 * it a pid reused by an unrelated process after a crash or reboot is not mistaken for the owner.
 */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ")".
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function isAlive(holder: LockHolder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to another user — still alive.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = processStart(holder.pid);
  return !(holder.started && started && started !== holder.started);
}

/**
 * A lock naming our own pid is ours only if the start time matches too (this process opened the
 * directory already); otherwise it was left by an earlier process that had the same pid — common
 * in containers, where the server is often pid 1 on every start.
 */
function isThisProcess(holder: LockHolder, mine: LockHolder): boolean {
  return holder.pid === mine.pid && holder.started !== undefined && holder.started === mine.started;
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
  return holder && isAlive(holder) ? holder : null;
}

export interface DataDirLock {
  /** Records the serving address in the lock file for other commands to find. */
  publish(info: { url: string }): void;
  release(): void;
}

/**
 * Takes the directory or throws DataDirLockedError naming the live holder. The lock file only ever
 * appears complete: it is written aside and hard-linked into place (link fails if the name
 * exists, like O_EXCL), and later rewrites replace it by rename.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const file = path.join(dataDir, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, started: processStart(process.pid) };
  const staged = `${file}.${process.pid}.tmp`;
  const writeStaged = (holder: LockHolder) => writeFileSync(staged, JSON.stringify(holder), { mode: 0o600 });
  writeStaged(mine);
  try {
    for (let attempt = 0; attempt < 10; attempt++) {
      try {
        linkSync(staged, file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const holder = readHolder(file);
        if (holder && isAlive(holder) && (holder.pid !== process.pid || isThisProcess(holder, mine))) {
          throw new DataDirLockedError(dataDir, holder);
        }
        // Stale: its owner is gone (or the file is unreadable). Move it aside atomically, so of
        // two processes taking over at once only one moves it; if what was moved turns out to be
        // a live owner's fresh lock (taken between our read and the move), put it back.
        const aside = `${file}.stale-${process.pid}`;
        try {
          renameSync(file, aside);
        } catch {
          continue; // someone else moved it first
        }
        const moved = readHolder(aside);
        if (moved && moved.pid !== process.pid && moved.pid !== holder?.pid && isAlive(moved)) {
          try {
            linkSync(aside, file);
          } finally {
            rmSync(aside, { force: true });
          }
          throw new DataDirLockedError(dataDir, moved);
        }
        rmSync(aside, { force: true });
        continue;
      }
      let released = false;
      return {
        publish(info) {
          if (released) return;
          writeStaged({ ...mine, ...info });
          renameSync(staged, file);
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
  } finally {
    // After a rename the staged name is gone; after a link it is a second name of the lock file.
    rmSync(staged, { force: true });
  }
}
