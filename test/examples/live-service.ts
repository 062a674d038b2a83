/**
 * The whole service (HTTP + workers) on a real port and a fresh database of the engine under
 * test, driven over HTTP as a user would: what the receiver examples and the packaged-client test
 * talk to.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/service.js';
import { createLogger } from '../../src/logger.js';
import { ENGINE, createPgTestDatabaseUrl } from '../helpers/db.js';
import { LogCapture } from '../helpers/context.js';

const ADMIN_TOKEN = 'vat_examples_admin_token_0123456789abcdefghij';

export interface LiveService {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Calls the admin API; throws unless the status is the expected one. */
  admin<T = any>(method: string, urlPath: string, body?: unknown, expectStatus?: number): Promise<T>;
  stop(): Promise<void>;
}

export async function startLiveService(): Promise<LiveService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vigia-live-'));
  const pg = ENGINE === 'pg' ? await createPgTestDatabaseUrl() : undefined;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    VIGIA_DATA_DIR: dataDir,
    ...(pg ? { DATABASE_URL: pg.url } : {}),
    VIGIA_SECRET_KEY: randomBytes(32).toString('base64'),
    VIGIA_ADMIN_TOKEN: ADMIN_TOKEN,
    VIGIA_DESTINATION_ALLOWLIST: '127.0.0.1,localhost',
    VIGIA_RETRY_SCHEDULE: '1s,1s,1s,1s',
    VIGIA_LOG_LEVEL: 'warn',
  });
  const service: RunningService = await startService(config, { logger: createLogger('warn', new LogCapture()) });
  const origin = service.address!;
  return {
    origin,
    async admin(method, urlPath, body, expectStatus) {
      const res = await fetch(`${origin}/api/admin/v1${urlPath}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      const want = expectStatus ?? (method === 'POST' ? 201 : 200);
      if (res.status !== want) throw new Error(`${method} ${urlPath} → ${res.status} (wanted ${want}): ${text}`);
      return (text ? JSON.parse(text) : undefined) as any;
    },
    async stop() {
      await service.stop();
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A failure signal that opens a new incident (a unique source each call). */
export function failureSignal(sourceId: string) {
  return {
    sourceType: 'Gateway',
    sourceId,
    sourceName: `Gateway ${sourceId}`,
    kind: 'failure',
    notificationKind: 'GatewayOffline',
    title: 'Gateway offline',
    message: 'O gateway parou de responder — “ação” ✓',
  };
}
