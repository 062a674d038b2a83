/**
 * E-mail delivery benchmark (`npm run bench -- email`; issue 37 item 9): messages per second to a
 * local SMTP server (smtp-server on loopback, STARTTLS with the test CA, AUTH PLAIN), all in one run:
 *   1. end to end: N incidents committed through the outbox (embedded PGlite, in memory) for one
 *      e-mail destination with one recipient; the real dispatcher renders each message from the
 *      notify model and sends it through the pooled transport (one connection);
 *      rate = messages / (dispatcher start → last delivery succeeded);
 *   2. the transport alone: the same rendered message N times through one pooled connection, and
 *      (the baseline) through a new connection per message (TCP + STARTTLS + AUTH each time).
 * Env: BENCH_EMAILS (default 500). Writes the "E-mail delivery" section of bench/RESULTS.md (BENCH_WRITE=0 skips).
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTransport } from 'nodemailer';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { createPgliteDatabase } from '../src/db/pglite.js';
import { migrate } from '../src/db/index.js';
import { createDestination } from '../src/delivery/destination-service.js';
import { startDispatcher } from '../src/delivery/dispatcher.js';
import { oneShotMailer } from '../src/delivery/email/mailer.js';
import { createLogger } from '../src/logger.js';
import { Sealer } from '../src/secrets/sealing.js';
import { SmtpFake } from '../test/fakes/smtp.js';
import { emitMany, insertOrg } from '../test/delivery/support.js';
import { machine } from './kit.js';
import { writeResultsSection } from './results-file.js';

const RESULTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');
const N = Number(process.env.BENCH_EMAILS ?? 500);

async function context(smtpUrl: string): Promise<AppContext> {
  const key = randomBytes(32);
  const config = loadConfig({
    VIGIA_SECRET_KEY: key.toString('base64'),
    VIGIA_BASE_URL: 'https://vigia.example.test',
    VIGIA_ORG_CAP_PER_CYCLE: '10000000',
    VIGIA_LOG_LEVEL: 'warn',
    VIGIA_SMTP_URL: smtpUrl,
    VIGIA_SMTP_FROM: 'Vigia <alertas@vigia.example.test>',
  });
  const log = createLogger('warn');
  const db = await createPgliteDatabase();
  await migrate(db);
  return { config, db, clock: systemClock, log, sealer: new Sealer(key) };
}

async function endToEnd(smtp: SmtpFake): Promise<{ seconds: number; rate: number }> {
  const ctx = await context(smtp.url());
  try {
    const orgId = await insertOrg(ctx);
    // One message per incident (groupWaitSeconds 0): the rate measured is of messages, not of grouped bursts.
    await createDestination(ctx, orgId, { name: 'bench', kind: 'email', config: { recipients: ['bench@example.com'], groupWaitSeconds: 0 } });
    await emitMany(ctx, orgId, N);
    const before = smtp.count;
    const t0 = performance.now();
    const worker = await startDispatcher(ctx);
    for (;;) {
      const { rows } = await ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM deliveries WHERE status = 'succeeded'");
      if (rows[0]!.n >= N) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - t0) / 1000;
    await worker.stop();
    if (smtp.count - before !== N) throw new Error(`sink received ${smtp.count - before} of ${N}`);
    return { seconds, rate: N / seconds };
  } finally {
    await ctx.db.close();
  }
}

const message = (i: number) => ({
  from: 'Vigia <alertas@vigia.example.test>',
  to: 'bench@example.com',
  subject: `[Vigia][ERRO] Gateway offline ${i}`,
  text: 'Incidente aberto · ERRO\n\nGateway offline\n',
  html: '<p>Incidente aberto · ERRO</p><h2>Gateway offline</h2>',
  headers: { 'Auto-Submitted': 'auto-generated' },
});

async function transportOnly(ctx: AppContext, pooled: boolean): Promise<number> {
  const smtp = ctx.config.smtp!;
  const t0 = performance.now();
  if (pooled) {
    const pool = createTransport({ host: smtp.host, port: smtp.port, secure: false, requireTLS: true, auth: smtp.auth!, pool: true, maxConnections: 1, maxMessages: 100_000 });
    await Promise.all(Array.from({ length: N }, (_, i) => pool.sendMail(message(i))));
    pool.close();
  } else {
    for (let i = 0; i < N; i++) {
      const one = oneShotMailer(smtp, 10_000);
      await one.sendMail(message(i));
      one.close();
    }
  }
  return N / ((performance.now() - t0) / 1000);
}

export async function runEmailBench(): Promise<void> {
  const smtp = new SmtpFake({ user: 'bench', pass: 'bench-password', countOnly: true });
  await smtp.start();
  const load0 = loadavg()[0]!;
  try {
    const e2e = await endToEnd(smtp);
    const ctx = await context(smtp.url());
    const pooled = await transportOnly(ctx, true);
    const unpooled = await transportOnly(ctx, false);
    await ctx.db.close();
    const load1 = loadavg()[0]!;
    const at = new Date().toISOString().slice(0, 16).replace('T', ' ');
    const section = [
      '## E-mail delivery',
      '',
      `Measured ${at} UTC on ${machine()}. Command: \`npm run bench -- email\` (BENCH_EMAILS=${N}).`,
      'SMTP sink: smtp-server on loopback in the same process, STARTTLS with the test CA, AUTH PLAIN, messages counted (not parsed).',
      `1-minute load average ${load0.toFixed(2)} before and ${load1.toFixed(2)} after (the machine is shared).`,
      '',
      '| Measure | Result | Target |',
      '|---|---|---|',
      `| end to end: ${N} incidents → ${N} messages, embedded PGlite, dispatcher, one pooled connection | ${e2e.rate.toFixed(1)} messages/s (${e2e.seconds.toFixed(2)} s) | ≥ 50 messages/s |`,
      `| transport alone, one pooled connection | ${pooled.toFixed(1)} messages/s | |`,
      `| transport alone, a new connection per message (baseline) | ${unpooled.toFixed(1)} messages/s | |`,
      `| pooled ÷ new connection per message | ${(pooled / unpooled).toFixed(1)} × | |`,
      '',
    ].join('\n');
    process.stdout.write(`${section}\n`);
    if (process.env.BENCH_WRITE !== '0') writeResultsSection(RESULTS, 'E-mail delivery', section);
  } finally {
    await smtp.stop();
  }
}
