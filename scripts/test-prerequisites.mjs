// What the test suite needs outside node_modules, checked before vitest starts so `npm test` says
// at once, in one line, what is missing and how to install it — instead of failing file after file.
// Only the needs of the selected test files are checked (all files when none is named).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Debian package per missing command, and the test files (or folders) that use it. */
const TOOLS = [
  { command: 'openssl', pkg: 'openssl', usedBy: ['test/'] }, // the private test CA (make-test-certs.mjs)
  { command: 'go', pkg: 'golang-go', usedBy: ['test/examples/receivers.test.ts'] },
  { command: 'python3', pkg: 'python3', usedBy: ['test/examples/receivers.test.ts'] },
  { command: 'curl', pkg: 'curl', usedBy: ['test/cli/readme-tour.test.ts'] },
  { command: 'jq', pkg: 'jq', usedBy: ['test/cli/readme-tour.test.ts'] },
  { command: 'script', pkg: 'bsdutils', usedBy: ['test/cli/banner.test.ts'] }, // gives the banner a terminal
  { path: '/usr/bin/chromium', name: 'chromium', pkg: 'chromium', usedBy: ['test/console/console.test.ts'] },
];

/** Services on loopback: PostgreSQL for the `pg` project, Redis for the shared rate-limit store. */
function services(env) {
  const pg = new URL(env.VIGIA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  const redis = new URL(env.VIGIA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  return [
    { name: `PostgreSQL at ${pg.hostname}:${pg.port || 5432} (VIGIA_TEST_PG_URL)`, pkg: 'postgresql', host: pg.hostname, port: Number(pg.port || 5432), usedBy: ['test/'], engine: 'pg' },
    { name: `Redis at ${redis.hostname}:${redis.port || 6379} (VIGIA_TEST_REDIS_URL)`, pkg: 'redis-server', host: redis.hostname, port: Number(redis.port || 6379), usedBy: ['test/public-api/redis-limits.test.ts'] },
  ];
}

function hasCommand(command, env) {
  return spawnSync('/bin/sh', ['-c', `command -v ${command}`], { stdio: 'ignore', env }).status === 0;
}

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function reachable(host, port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: host.replace(/^\[|\]$/g, ''), port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The vitest arguments that name test files or folders (relative to root); none means the whole
 * suite. An argument names a file or folder when it exists (so the value of `-t name` does not).
 * `--project pglite` alone means no PostgreSQL is needed (`once`, the engine-neutral files, runs on it).
 */
function selection(root, args) {
  const paths = [];
  let projects = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--project') projects.push(args[++i]);
    else if (arg.startsWith('--project=')) projects.push(arg.slice('--project='.length));
    else if (!arg.startsWith('-') && existsSync(path.resolve(root, arg))) paths.push(path.relative(root, path.resolve(root, arg)).split(path.sep).join('/'));
  }
  if (projects.length === 0) projects = ['pg', 'pglite', 'once'];
  return { paths, projects };
}

function selected(usedBy, paths) {
  if (paths.length === 0) return true;
  return usedBy.some((use) => paths.some((p) => use.startsWith(p) || p.startsWith(use)));
}

/**
 * Returns null when everything the selected tests need is here, else one line naming what is
 * missing and the command that installs it.
 */
export async function missingPrerequisites(root, args, env = process.env) {
  const { paths, projects } = selection(root, args);
  const missing = [];
  for (const tool of TOOLS) {
    if (!selected(tool.usedBy, paths)) continue;
    const present = tool.path ? isExecutable(tool.path) : hasCommand(tool.command, env);
    if (!present) missing.push({ name: tool.name ?? tool.command, pkg: tool.pkg });
  }
  for (const service of services(env)) {
    if (!selected(service.usedBy, paths)) continue;
    // The `once` project (engine-neutral files, vitest.config.ts) runs on PostgreSQL too.
    if (service.engine && !projects.includes(service.engine) && !projects.includes('once')) continue;
    if (!(await reachable(service.host, service.port))) missing.push({ name: `${service.name} not reachable`, pkg: service.pkg, service: true });
  }
  if (missing.length === 0) return null;
  const packages = [...new Set(missing.map((m) => m.pkg))];
  const startHint = missing.some((m) => m.service) ? ', then start the services (see README, "Tests")' : '';
  return `npm test needs: ${missing.map((m) => m.name).join(', ')} — install: apt-get install -y ${packages.join(' ')}${startHint}`;
}

// `node scripts/test-prerequisites.mjs --missing-packages` prints the Debian packages of the
// missing commands, space-separated (nothing when all are here): .ci/run installs them from this
// one list. Services are left out: CI starts PostgreSQL and Redis itself.
if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname && process.argv.includes('--missing-packages')) {
  const packages = TOOLS.filter((tool) => !(tool.path ? isExecutable(tool.path) : hasCommand(tool.command, process.env))).map((tool) => tool.pkg);
  process.stdout.write(packages.length ? `${packages.join(' ')}\n` : '');
}
