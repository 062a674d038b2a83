import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_COUNT_CAP } from '../../src/metrics.js';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/service.js';
import { createLogger } from '../../src/logger.js';
import { LogCapture, TEST_ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/context.js';
import { ENGINE, createPgTestDatabaseUrl } from '../helpers/db.js';
import { createOrg } from '../helpers/fixtures.js';

const gauge = (text: string, name: string): number => {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`${name} not in the scrape`);
  return Number(m[1]);
};

describe('/metrics scrape cost', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('counts the due backlog only up to a cap, so a scrape never walks the whole queue', async () => {
    const org = await createOrg(t);
    const destinationId = 'dst_scrape';
    await t.ctx.db.query(
      `INSERT INTO destinations (id, org_id, name, kind, url, signing_secret_sealed, created_at, updated_at)
       VALUES ($1, $2, 'hook', 'webhook', 'https://receiver.example.test/hook', $3, now(), now())`,
      [destinationId, org.id, t.ctx.sealer.seal('whsec_scrape')],
    );
    const due = new Date(t.ctx.clock.now().getTime() - 60_000);
    let batch = 0;
    const insert = (status: string, n: number) =>
      t.ctx.db.query(
        `INSERT INTO deliveries (id, org_id, destination_id, alert_id, event, status, body, test, next_attempt_at, created_at)
         SELECT 'dlv_scrape_' || $6 || '_' || i, $1, $2, 'alr_scrape', 'alert.opened', $4, '{}', true, $3, $3
           FROM generate_series(1, $5::int) AS i`,
        [org.id, destinationId, due, status, n, ++batch],
      );
    await insert('pending', 25);
    let scrape = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(scrape.statusCode).toBe(200);
    expect(gauge(scrape.body, 'vigia_deliveries_due')).toBe(25);
    expect(gauge(scrape.body, 'vigia_deliveries_oldest_due_age_seconds')).toBe(60);

    await insert('pending', QUEUE_COUNT_CAP);
    scrape = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(gauge(scrape.body, 'vigia_deliveries_due')).toBe(QUEUE_COUNT_CAP);
    expect(scrape.body).toContain(`counted up to ${QUEUE_COUNT_CAP}`);
    // The oldest due row is still found exactly (the index's first entry).
    expect(gauge(scrape.body, 'vigia_deliveries_oldest_due_age_seconds')).toBe(60);
  });
});

describe('VIGIA_METRICS_PORT', () => {
  let service: RunningService | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await service?.stop();
    await cleanup?.();
  });

  it('serves /metrics on its own listener and not on the main port', async () => {
    const env: Record<string, string> = {
      PORT: '0',
      VIGIA_METRICS_PORT: '0',
      VIGIA_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      VIGIA_SECRET_KEY: randomBytes(32).toString('base64'),
      VIGIA_LOG_LEVEL: 'warn',
    };
    if (ENGINE === 'pg') {
      const pg = await createPgTestDatabaseUrl();
      env.DATABASE_URL = pg.url;
      cleanup = pg.drop;
    } else {
      const dir = mkdtempSync(path.join(tmpdir(), 'vigia-metrics-port-'));
      env.VIGIA_DATA_DIR = dir;
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
    service = await startService(loadConfig(env), { worker: false, logger: createLogger('warn', new LogCapture()) });
    expect(service.metricsAddress).toBeDefined();
    expect(service.metricsAddress).not.toBe(service.address);

    const separate = await fetch(`${service.metricsAddress}/metrics`);
    expect(separate.status).toBe(200);
    expect(separate.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await separate.text()).toMatch(/^vigia_deliveries_due \d+$/m);
    // Only /metrics there: not the APIs, not the console.
    expect((await fetch(`${service.metricsAddress}/api/admin/v1/orgs`)).status).toBe(404);
    expect((await fetch(`${service.metricsAddress}/`)).status).toBe(404);

    const main = await fetch(`${service.address}/metrics`);
    expect(main.status).toBe(404);
    expect((await main.json()).error.code).toBe('not_found');
    expect((await fetch(`${service.address}/healthz`)).status).toBe(200);
  });

  it('refuses a metrics port equal to the main port', () => {
    expect(() => loadConfig({ PORT: '9100', VIGIA_METRICS_PORT: '9100' })).toThrow(/VIGIA_METRICS_PORT must differ from PORT/);
    expect(() => loadConfig({ VIGIA_METRICS_PORT: 'ninety' })).toThrow(/VIGIA_METRICS_PORT/);
  });
});
