/**
 * Helpers of the CLI tests: `vigia …` as real child processes (tsx), their output, and an
 * afterAll that stops any still running. Each child gets only the environment given, plus PATH,
 * HOME and the test CA.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Child {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** Resolves with the first match of re in stdout; rejects if the process exits first. */
  waitFor(re: RegExp): Promise<RegExpExecArray>;
}

const running = new Set<ChildProcess>();

export function baseEnv(env: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
    VIGIA_LOG_LEVEL: 'info',
    ...env,
  };
}

export function vigia(args: string[], env: Record<string, string>): Child {
  return watch(spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: root, env: baseEnv(env) }), args.join(' '));
}

/**
 * A supervisor that runs `vigia serve` in its own process group, kills the group with SIGKILL when
 * told ("kill" on its stdin, answered "killed") and is then too busy to reap the killed server
 * until `reapedFlag` exists (bounded: 60 s): the server stays a zombie meanwhile, as it does
 * under a slow init or supervisor.
 */
export function slowSupervisor(env: Record<string, string>, reapedFlag: string): Child {
  const script = `
    const { spawn } = require('node:child_process');
    const { existsSync } = require('node:fs');
    const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
    process.stdin.on('data', () => {
      process.kill(-server.pid, 'SIGKILL');
      process.stdout.write('killed\\n');
      const cell = new Int32Array(new SharedArrayBuffer(4));
      for (let i = 0; i < 1200 && !existsSync(${JSON.stringify(reapedFlag)}); i++) Atomics.wait(cell, 0, 0, 50);
      process.exit(0);
    });`;
  return watch(spawn(process.execPath, ['-e', script], { cwd: root, env: baseEnv({ PORT: '0', ...env }) }), 'supervisor');
}

function watch(child: ChildProcess, name: string): Child {
  running.add(child);
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal ? -1 : null));
    }),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(re) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            listeners.delete(check);
            resolve(m);
          }
        };
        listeners.add(check);
        check();
        void exited.then((code) => reject(new Error(`vigia ${name} exited ${code} before printing ${re}: ${err}\n${out}`)));
      });
    },
  };
}

/** Starts `vigia serve` (port 0) and resolves with its address once it listens. */
export async function serve(env: Record<string, string>): Promise<Child & { base: string }> {
  const c = vigia(['serve'], { PORT: '0', ...env });
  const m = await c.waitFor(/"address":"(http:\/\/[^"]+)"[^\n]*"msg":"vigia listening"/);
  return { ...c, base: m[1]! };
}

export function stopAll(): void {
  for (const child of running) child.kill('SIGKILL');
}
