import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { ManualClock, type Clock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { createLogger } from '../../src/logger.js';
import { Sealer } from '../../src/secrets/sealing.js';
import { buildApp } from '../../src/app.js';
import { ensureAdminToken } from '../../src/admin-api/admin-token.js';
import { createTestDatabase, type TestDatabase } from './db.js';

export const TEST_ADMIN_TOKEN = 'vat_test_admin_token_0123456789abcdefghijklmnop';

/** Captures log lines so tests can assert that no secret was ever logged. */
export class LogCapture extends Writable {
  lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    cb();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export interface TestContext extends AppContext {
  testDb: TestDatabase;
  logs: LogCapture;
  close(): Promise<void>;
}

export interface TestContextOptions {
  clock?: Clock;
  config?: Partial<Config>;
  env?: Record<string, string>;
}

/** A migrated database on the engine under test, a config, a clock and a log capture. */
export async function createTestContext(opts: TestContextOptions = {}): Promise<TestContext> {
  const testDb = await createTestDatabase();
  const masterKey = randomBytes(32);
  const config: Config = {
    ...loadConfig({
      VIGIA_BASE_URL: 'https://vigia.example.test',
      VIGIA_SECRET_KEY: masterKey.toString('base64'),
      VIGIA_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      VIGIA_LOG_LEVEL: 'debug',
      ...opts.env,
    }),
    databaseUrl: testDb.url,
    ...opts.config,
  };
  const logs = new LogCapture();
  return {
    config,
    db: testDb.db,
    clock: opts.clock ?? new ManualClock('2026-06-15T12:00:00Z'),
    log: createLogger(config.logLevel, logs),
    sealer: new Sealer(masterKey),
    testDb,
    logs,
    close: () => testDb.drop(),
  };
}

export interface TestApp {
  ctx: TestContext;
  app: FastifyInstance;
  /** Injects a request with the admin token. */
  admin(method: InjectOptions['method'], url: string, payload?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** The HTTP app on a fresh test context, admin token set to TEST_ADMIN_TOKEN. */
export async function createTestApp(opts: TestContextOptions = {}): Promise<TestApp> {
  const ctx = await createTestContext(opts);
  await ensureAdminToken(ctx.db, TEST_ADMIN_TOKEN);
  const app = await buildApp(ctx);
  await app.ready();
  return {
    ctx,
    app,
    admin(method, url, payload, headers = {}) {
      return app.inject({
        method,
        url: url.startsWith('/api/') ? url : `/api/admin/v1${url}`,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...headers },
        ...(payload === undefined ? {} : { payload: payload as any }),
      });
    },
    async close() {
      await app.close();
      await ctx.close();
    },
  };
}
