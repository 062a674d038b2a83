/**
 * Private PostgreSQL clusters for tests that need to stop, restart or replicate a server:
 * initdb/pg_ctl from the machine's PostgreSQL binaries, run as the postgres user when we are
 * root, on their own port and temporary directory.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';

const BIN = ['/usr/lib/postgresql/15/bin', ...(existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').map((v) => `/usr/lib/postgresql/${v}/bin`) : [])].find((d) =>
  existsSync(path.join(d, 'pg_ctl')),
)!;

// pg_ctl's server inherits our stdio: pipes would keep execFileSync waiting for the server to
// exit, so pg_ctl runs with stdio ignored (the server logs to log.txt).
function asPostgres(cmd: string, args: string[]): Buffer | string {
  const stdio = cmd === 'pg_ctl' ? 'ignore' : 'pipe';
  return process.getuid?.() === 0
    ? execFileSync('runuser', ['-u', 'postgres', '--', path.join(BIN, cmd), ...args], { stdio, timeout: 60_000 })
    : execFileSync(path.join(BIN, cmd), args, { stdio, timeout: 60_000 });
}

function ownedTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  if (process.getuid?.() === 0) {
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
  }
  return dir;
}

export interface PgCluster {
  port: number;
  dir: string;
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  start(): void;
  restart(): void;
  stop(mode?: 'fast' | 'immediate'): void;
  /** Stops the server (if running) and removes its directory. */
  destroy(): void;
}

function cluster(dir: string, port: number): PgCluster {
  const pgCtl = (...args: string[]) => asPostgres('pg_ctl', ['-D', dir, '-w', '-t', '30', ...args]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  return {
    port,
    dir,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => void pgCtl('-o', options, '-l', path.join(dir, 'log.txt'), 'start'),
    restart: () => void pgCtl('-m', 'fast', 'restart', '-o', options),
    stop: (mode = 'fast') => void pgCtl('-m', mode, 'stop'),
    destroy() {
      try {
        pgCtl('-m', 'immediate', 'stop');
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}


/** initdb + start on a random port. */
export async function startPrivateCluster(): Promise<PgCluster> {
  const dir = ownedTempDir('vigia-pg-');
  asPostgres('initdb', ['-D', dir, '--username', 'postgres', '--auth', 'trust', '--no-sync', '-E', 'UTF8']);
  const c = cluster(dir, await freePort());
  c.start();
  return c;
}

/** A streaming standby of `primary` (pg_basebackup -R), started on its own port. */
export async function startStandby(primary: PgCluster): Promise<PgCluster> {
  const dir = ownedTempDir('vigia-standby-');
  asPostgres('pg_basebackup', ['-D', dir, '-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-R', '-X', 'stream', '--no-sync']);
  const c = cluster(dir, await freePort());
  c.start();
  return c;
}
