/**
 * Child process for the two-process race test: opens its own pool on DATABASE_URL, waits for
 * "go" on stdin, then sends one failure signal per key (each its own transaction, 8 at a time)
 * and prints the outcomes as JSON.
 */
import { createInterface } from 'node:readline';
import { createPgDatabase } from '../../../src/db/pg.js';
import { systemClock } from '../../../src/clock.js';
import { ingestSignals } from '../../../src/alerts/lifecycle.js';
import type { Config } from '../../../src/config.js';

const db = createPgDatabase(process.env.DATABASE_URL!, undefined, { max: 8 });
const ctx = { db, clock: systemClock, config: { baseUrl: 'https://vigia.example.test' } as Config };
const orgId = process.env.ORG_ID!;
const keys = Number(process.env.KEYS);

await db.query('SELECT 1');
process.stdout.write('ready\n');
const rl = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => rl.once('line', () => resolve()));
rl.close();

const outcomes: unknown[] = [];
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < keys) {
      const i = next++;
      const { outcomes: o } = await ingestSignals(ctx, orgId, {
        sourceType: 'Gateway', sourceId: `race-${i}`, sourceName: `Gateway ${i}`, kind: 'failure',
        notificationKind: 'GatewayOffline', title: 'offline', message: 'm',
      });
      outcomes.push(o[0]);
    }
  }),
);
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
await db.close();
