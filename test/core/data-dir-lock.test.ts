// @engine-neutral: no database is opened here
/**
 * The data-directory lock against real processes: a live owner keeps it, a dead owner's lock is
 * taken over, and a pid reused by an unrelated process (different start time) is not an owner.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError, LOCK_FILE, readLockHolder } from '../../src/db/data-dir-lock.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
const freshDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'vigia-lock-'));
  dirs.push(d);
  return d;
};
const startTime = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
};
async function sleeper(): Promise<ChildProcess> {
  const c = spawn('sleep', ['60']);
  children.push(c);
  await new Promise((r) => c.once('spawn', r));
  return c;
}

describe('data directory lock', () => {
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a live owner keeps the directory; the error names its pid', async () => {
    const dir = freshDir();
    const owner = await sleeper();
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: owner.pid, started: startTime(owner.pid!), url: 'http://127.0.0.1:1234' }));
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
    expect(() => acquireDataDirLock(dir)).toThrow(new RegExp(`pid ${owner.pid}, serving http://127.0.0.1:1234`));
    expect(readLockHolder(dir)?.pid).toBe(owner.pid);
  });

  it('the lock of a process that died (kill -9) is taken over', async () => {
    const dir = freshDir();
    const owner = await sleeper();
    const pid = owner.pid!;
    const started = startTime(pid);
    owner.kill('SIGKILL');
    await new Promise((r) => owner.once('exit', r));
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid, started }));
    expect(readLockHolder(dir)).toBeNull();
    const lock = acquireDataDirLock(dir);
    expect(readLockHolder(dir)?.pid).toBe(process.pid);
    lock.publish({ url: 'http://127.0.0.1:9' });
    expect(readLockHolder(dir)).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:9' });
    lock.release();
    expect(readLockHolder(dir)).toBeNull();
  });

  it('a zombie owner (killed, not yet reaped by its parent) is gone: its lock is taken over at once', async () => {
    const dir = freshDir();
    // sh starts a short sleep in the background, prints its pid and becomes `sleep 60`, which never
    // reaps it: the short one ends after the exec (so sh cannot reap it either, whatever the load)
    // and stays a zombie for as long as the long sleeper lives.
    const parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 60']);
    children.push(parent);
    const zombie = Number(await new Promise<string>((r) => parent.stdout!.once('data', (d: Buffer) => r(d.toString()))));
    const state = () => readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]![0];
    for (let i = 0; i < 500 && state() !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(state()).toBe('Z');
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: zombie, started: startTime(zombie) }));
    expect(readLockHolder(dir)).toBeNull();
    const lock = acquireDataDirLock(dir);
    expect(readLockHolder(dir)?.pid).toBe(process.pid);
    lock.release();
  });

  it('a live process that merely reuses the recorded pid is not the owner', async () => {
    const dir = freshDir();
    const other = await sleeper();
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: other.pid, started: '1' }));
    const lock = acquireDataDirLock(dir);
    expect(readLockHolder(dir)?.pid).toBe(process.pid);
    lock.release();
  });

  it('an unreadable lock file (owner died while writing) is taken over', () => {
    const dir = freshDir();
    writeFileSync(path.join(dir, LOCK_FILE), '{"pid":');
    const lock = acquireDataDirLock(dir);
    expect(readLockHolder(dir)?.pid).toBe(process.pid);
    lock.release();
  });

  it('one process cannot open the directory twice, but a lock left by an earlier holder of its pid is taken over', () => {
    const dir = freshDir();
    const lock = acquireDataDirLock(dir);
    expect(() => acquireDataDirLock(dir)).toThrow(new RegExp(`pid ${process.pid}`));
    lock.release();
    // Same pid, different start time: a previous container run where the server was also this pid.
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, started: '1' }));
    const again = acquireDataDirLock(dir);
    expect(readLockHolder(dir)?.started).toBe(startTime(process.pid));
    again.release();
  });
});
