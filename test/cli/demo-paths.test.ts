/**
 * `vigia demo` tells one story two ways: straight into the database, or through a running
 * server's admin API (when the server holds the embedded directory). Both must leave the same
 * history, so the SLA report and the metrics a user reads are the same whichever path ran —
 * acknowledgements at the story's time, not at the time the demo ran.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { seedDemo, seedDemoRemote } from '../../src/demo.js';
import { createLogger } from '../../src/logger.js';
import { startService, type RunningService } from '../../src/service.js';
import { LogCapture } from '../helpers/context.js';
import { createPgTestDatabaseUrl, ENGINE } from '../helpers/db.js';

const ADMIN_TOKEN = `vat_${'d'.repeat(48)}`;

describe(`demo: direct and through a running server (${ENGINE})`, () => {
  let service: RunningService;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    let env: Record<string, string>;
    if (ENGINE === 'pg') {
      const db = await createPgTestDatabaseUrl();
      env = { DATABASE_URL: db.url, VIGIA_SECRET_KEY: randomBytes(32).toString('base64') };
      cleanup = db.drop;
    } else {
      const dir = mkdtempSync(path.join(tmpdir(), 'vigia-demo-'));
      env = { VIGIA_DATA_DIR: dir };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
    // No workers: the comparison is of what each path records, not of later escalations.
    service = await startService(loadConfig({ ...env, PORT: '0', VIGIA_ADMIN_TOKEN: ADMIN_TOKEN }), {
      worker: false,
      logger: createLogger('warn', new LogCapture()),
    });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await cleanup?.();
  });

  it('both paths yield the same SLA report and metrics', async () => {
    const now = new Date();
    const direct = await seedDemo(service.ctx, now);
    const remote = await seedDemoRemote(service.address!, ADMIN_TOKEN, now);
    expect(remote.alerts).toBe(direct.alerts);

    const read = async (key: string, url: string) => {
      const res = await fetch(`${service.address}/api/public/v1${url}`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
      return res.json() as Promise<Record<string, unknown>>;
    };
    const month = now.toISOString().slice(0, 7);
    const from = new Date(now.getTime() - 40 * 86_400_000).toISOString().slice(0, 10);
    const to = now.toISOString().slice(0, 10);
    // The previous month is closed; the metrics count incidents and durations of ended ones.
    for (const url of ['/sla', `/alerts/metrics?from=${from}&to=${to}`]) {
      expect(await read(remote.apiKey, url), url).toEqual(await read(direct.apiKey, url));
    }
    // This month's availability counts the open incidents' downtime up to the moment of each
    // request: equal within a minute, everything else exactly.
    type Sla = { availability: { capacityName: string; downtimeMinutes: number; availabilityPercent: number }[] };
    const a = (await read(direct.apiKey, `/sla?month=${month}`)) as unknown as Sla;
    const b = (await read(remote.apiKey, `/sla?month=${month}`)) as unknown as Sla;
    const { availability: availA, ...restA } = a;
    const { availability: availB, ...restB } = b;
    expect(restB).toEqual(restA);
    expect(availB.map((c) => c.capacityName)).toEqual(availA.map((c) => c.capacityName));
    for (const [i, c] of availB.entries()) expect(Math.abs(c.downtimeMinutes - availA[i]!.downtimeMinutes)).toBeLessThan(1);
    // The story's acknowledgements come minutes after the opening (2 to 41), not weeks later.
    const sla = (await read(direct.apiKey, '/sla')) as { mtta: { medianSeconds: number; samples: number } };
    expect(sla.mtta.samples).toBeGreaterThan(0);
    expect(sla.mtta.medianSeconds).toBeLessThan(45 * 60);
  }, 300_000);

  it('each seeded alert says what its kind is: a slow refresh says it is slow, not an earlier failure\'s words', async () => {
    const { rows } = await service.ctx.db.query<{ notification_kind: string; message: string }>(
      "SELECT DISTINCT notification_kind, message FROM alerts WHERE notification_kind IN ('RefreshSlow', 'RefreshFailed')",
    );
    const slow = rows.filter((r) => r.notification_kind === 'RefreshSlow');
    expect(slow.length).toBeGreaterThan(0);
    for (const r of slow) expect(r.message).toMatch(/demorando/);
    for (const r of slow) expect(r.message).not.toMatch(/Credenciais|falhou/);
  });
});
