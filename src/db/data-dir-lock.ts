/**
 * One process per embedded data directory. PGlite is a single-process database: two processes on
 * one directory corrupt it silently. The lock is a file created exclusively, holding the owner's
 * pid (and start time); a lock whose pid is no longer alive (the owner was killed with -9) is taken over. Liveness
 * is asked of the OS (signal 0 and /proc), never guessed from the file's age. A killed owner stays
 * visible for a while: a zombie (exited, not yet reaped by its parent) is gone already, and an owner
 * that is exiting (killed, tearing down its memory) is waited for a few seconds before refusing —
 * a supervisor restarts the server right after `kill -9`, often before the old pid disappears.
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

/** How long an exiting owner is waited for before the directory is refused. */
const EXITING_OWNER_WAIT_MS = 5_000;
const EXITING_OWNER_POLL_MS = 50;
/** The kernel's PF_EXITING task flag (field 9 of /proc/<pid>/stat): the process is in exit. */
const PF_EXITING = 0x4;
/** SIGKILL's bit in /proc/<pid>/status signal masks. */
const SIGKILL_BIT = 1n << 8n;

/**
 * Linux: fields 3 onwards of /proc/<pid>/stat (index 0 is the state, 6 the flags, 19 the start
 * time in clock ticks since boot), or undefined where there is no /proc or no such process.
 */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ")".
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * The process's start time; with it a pid reused by an unrelated process after a crash or reboot
 * is not mistaken for the owner.
 */
function processStart(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** A SIGKILL is pending for the process (sent, not yet acted on). */
function sigkillPending(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return [...status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)].some((m) => (BigInt(`0x${m[1]}`) & SIGKILL_BIT) !== 0n);
  } catch {
    return false;
  }
}

type Liveness = 'gone' | 'exiting' | 'alive';

function liveness(holder: LockHolder): Liveness {
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to another user — still alive.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return 'gone';
  }
  const fields = statFields(holder.pid);
  if (!fields) return 'alive'; // no /proc (not Linux): signal 0 is all we can ask
  const [state, , , , , , flags] = fields;
  // Z: exited, waiting for its parent to reap it; X: being reaped. Neither writes anything again.
  if (state === 'Z' || state === 'X') return 'gone';
  if (holder.started && fields[19] !== holder.started) return 'gone';
  if ((Number(flags) & PF_EXITING) !== 0 || sigkillPending(holder.pid)) return 'exiting';
  return 'alive';
}

/** Blocks the thread for ms (start-up only: the lock is taken before anything else runs). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Alive after waiting, within a bound, for an exiting owner to finish. */
function isAlive(holder: LockHolder): boolean {
  const deadline = Date.now() + EXITING_OWNER_WAIT_MS;
  for (;;) {
    const state = liveness(holder);
    if (state !== 'exiting') return state === 'alive';
    if (Date.now() >= deadline) return true;
    pause(EXITING_OWNER_POLL_MS);
  }
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
