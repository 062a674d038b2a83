// @engine-neutral: the example receivers verify real deliveries; the delivery path runs on both engines elsewhere
/**
 * The receiver examples in Python and Go (standard libraries only), run against real deliveries
 * from a live service. The TypeScript example runs in test/package/package.test.ts, where the
 * packed package is installed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startLiveService, type LiveService } from './live-service.js';
import { ROOT, checkExample, startExample } from './receiver-run.js';

let service: LiveService;
const buildDir = mkdtempSync(path.join(os.tmpdir(), 'vigia-go-example-'));
beforeAll(async () => {
  service = await startLiveService();
});
afterAll(async () => {
  await service?.stop();
  rmSync(buildDir, { recursive: true, force: true });
});

describe('receiver examples', () => {
  it('examples/python verifies, deduplicates and refuses stale and tampered deliveries', async () => {
    await checkExample(service, (secret) => startExample('python3', ['receiver.py'], { cwd: path.join(ROOT, 'examples', 'python'), secret }));
  });

  it('examples/go verifies, deduplicates and refuses stale and tampered deliveries', async () => {
    const binary = path.join(buildDir, 'receiver');
    execFileSync('go', ['build', '-o', binary, '.'], { cwd: path.join(ROOT, 'examples', 'go'), stdio: 'pipe', env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' } });
    await checkExample(service, (secret) => startExample(binary, [], { cwd: path.join(ROOT, 'examples', 'go'), secret }));
  }, 180_000);
});
