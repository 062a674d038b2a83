// @engine-neutral: the packed package installs and imports, no database
/**
 * The package as a consumer gets it: `npm pack`, installed into a scratch project, used from plain
 * Node (no tsx, no TypeScript) — `vigia/receiver` verifies a real delivery and `vigia/client` walks
 * a real API's pages — and the TypeScript receiver example runs on the installed package.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';
import { failureSignal, startLiveService, type LiveService } from '../examples/live-service.js';
import { ROOT, checkExample, startExample } from '../examples/receiver-run.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'vigia-pack-'));
const scratch = path.join(work, 'consumer');
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Builds the package from the working tree into a staging copy and packs it (the repo's dist/ is left alone). */
function packFromSource(): string {
  const staging = path.join(work, 'staging');
  for (const entry of ['package.json', 'README.md', 'bin', 'src']) cpSync(path.join(ROOT, entry), path.join(staging, entry), { recursive: true });
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', path.join(staging, 'dist')], { cwd: ROOT, stdio: 'pipe' });
  const [packed] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], staging));
  return path.join(work, packed.filename);
}

let service: LiveService;
let receiver: TestReceiver;
let tarball: string;

beforeAll(async () => {
  tarball = packFromSource();
  // The consumer project is the TypeScript example, with the package from the tarball.
  cpSync(path.join(ROOT, 'examples', 'typescript'), scratch, { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(scratch, 'package.json'), 'utf8'));
  manifest.dependencies.vigia = `file:${tarball}`;
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify(manifest, null, 2));
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], scratch);
  service = await startLiveService();
  receiver = await startReceiver();
}, 240_000);

afterAll(async () => {
  await receiver?.close();
  await service?.stop();
  rmSync(work, { recursive: true, force: true });
});

// Asynchronous on purpose: the service under test runs in this process and must keep answering.
const runNode = async (script: string, args: string[]) =>
  (await promisify(execFile)(process.execPath, [script, ...args], { cwd: scratch, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })).stdout;

describe('the packed package from plain Node', () => {
  it('installs into a project of its own on Node 20 without an engine warning', () => {
    // A consumer gets none of this repository's overrides: its dependencies must declare the
    // Node versions the package declares, as resolved from its own package.json alone.
    const plain = path.join(work, 'plain');
    mkdirSync(plain);
    writeFileSync(path.join(plain, 'package.json'), JSON.stringify({ name: 'plain-consumer', version: '1.0.0', private: true }));
    const install = spawnSync('npm', ['install', tarball, '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn'], { cwd: plain, encoding: 'utf8' });
    expect(install.status, install.stderr).toBe(0);
    expect(install.stderr).not.toMatch(/EBADENGINE/);
  }, 240_000);

  it('contains the compiled entry points, the compiled CLI, the migrations and the type declarations, not the tests', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/receiver/index.js', 'dist/receiver/index.d.ts', 'dist/client/index.js', 'dist/client/index.d.ts', 'dist/main.js', 'bin/vigia.mjs', 'src/db/migrations/001_init.sql']) {
      expect(files).toContain(`package/${f}`);
    }
    expect(files.some((f) => f.startsWith('package/test/'))).toBe(false);
  });

  it('vigia/receiver verifies a real delivery and refuses it tampered', async () => {
    const org = await service.admin('POST', '/orgs', { name: 'Package consumer' });
    const dest = await service.admin('POST', `/orgs/${org.id}/destinations`, { name: 'rx', kind: 'webhook', url: `https://localhost:${receiver.port}/hook` });
    const [outcome] = await service.admin('POST', `/orgs/${org.id}/signals`, [failureSignal('pkg-gw')], 200);
    const [delivered] = await receiver.waitFor(1, 30_000);
    const capture = path.join(work, 'delivery.json');
    writeFileSync(capture, JSON.stringify({ rawBody: delivered.rawBody.toString('base64'), headers: delivered.headers }));
    writeFileSync(
      path.join(scratch, 'verify.mjs'),
      `import { readFileSync } from 'node:fs';
import { verifyWebhook, IdempotencyDeduplicator } from 'vigia/receiver';
const [file, secret, tamper] = process.argv.slice(2);
const { rawBody, headers } = JSON.parse(readFileSync(file, 'utf8'));
const body = Buffer.from(rawBody, 'base64');
if (tamper) body[body.length - 2] ^= 1;
try {
  const event = verifyWebhook({ rawBody: body, headers, secret });
  const seen = new IdempotencyDeduplicator();
  console.log(JSON.stringify({ ok: true, id: event.id, event: event.event, alertId: event.alert.id, first: seen.firstSeen(event.id), again: seen.firstSeen(event.id) }));
} catch (err) {
  console.log(JSON.stringify({ ok: false, code: err.code, status: err.statusCode }));
}
`,
    );
    const ok = JSON.parse(await runNode('verify.mjs', [capture, dest.signingSecret]));
    expect(ok).toEqual({ ok: true, id: delivered.headers['idempotency-key'], event: 'alert.opened', alertId: outcome.alertId, first: true, again: false });
    expect(JSON.parse(await runNode('verify.mjs', [capture, dest.signingSecret, 'tamper']))).toEqual({ ok: false, code: 'bad_signature', status: 401 });
  });

  it('vigia/client walks every page of a real public API', async () => {
    const org = await service.admin('POST', '/orgs', { name: 'Client consumer' });
    const names = Array.from({ length: 7 }, (_, i) => `cap-${String(i).padStart(2, '0')}`);
    await service.admin('PUT', `/orgs/${org.id}/capacities`, names.map((name) => ({ name, sku: 'F64', state: 'Active', region: 'brazilsouth' })), 200);
    const key = await service.admin('POST', `/orgs/${org.id}/api-keys`, { name: 'pkg', scopes: ['ReadCapacities'] });
    writeFileSync(
      path.join(scratch, 'walk.mjs'),
      `import { createPublicApiClient } from 'vigia/client';
const [baseUrl, apiKey] = process.argv.slice(2);
const client = createPublicApiClient({ baseUrl, apiKey });
const pages = [];
for await (const page of client.pages('/capacities', { pageSize: 3 })) pages.push(page.value.map((c) => c.name));
console.log(JSON.stringify(pages));
`,
    );
    const pages: string[][] = JSON.parse(await runNode('walk.mjs', [service.origin, key.key]));
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat().sort()).toEqual(names);
  });
});

describe('the installed package from TypeScript and the shell', () => {
  it('type-checks a strict consumer against its declarations (skipLibCheck off)', async () => {
    writeFileSync(
      path.join(scratch, 'consumer.ts'),
      `import { createPublicApiClient, type AlertItem, type Page } from 'vigia/client';
import { verifyWebhook, IdempotencyDeduplicator, type WebhookEvent } from 'vigia/receiver';
const client = createPublicApiClient({ baseUrl: 'http://localhost:8080', apiKey: 'vgk_x' });
export async function firstMessages(): Promise<string[]> {
  const page: Page<AlertItem> = await client.alerts({ status: 'open', pageSize: 5 });
  return page.value.map((a) => a.message);
}
export function check(raw: Buffer, headers: Record<string, string>): WebhookEvent | null {
  const seen = new IdempotencyDeduplicator({ ttlSeconds: 60 });
  const event = verifyWebhook({ rawBody: raw, headers, secret: 'whsec_x' });
  return seen.firstSeen(event.id) ? event : null;
}
`,
    );
    writeFileSync(
      path.join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', skipLibCheck: false, types: ['node'], typeRoots: [path.join(ROOT, 'node_modules/@types')] },
        files: ['consumer.ts'],
      }),
    );
    await promisify(execFile)(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: scratch });
  });

  it('runs the vigia command', async () => {
    const help = await runNode('node_modules/vigia/bin/vigia.mjs', ['--help']);
    for (const command of ['serve', 'migrate', 'demo', 'listen']) expect(help).toContain(command);
  });
});

describe('examples/typescript on the installed package', () => {
  it('verifies, deduplicates and refuses stale and tampered deliveries', async () => {
    await checkExample(service, (secret) => startExample(process.execPath, ['--import', 'tsx', 'server.ts'], { cwd: scratch, secret, env: { NODE_OPTIONS: '' } }));
  });
});
