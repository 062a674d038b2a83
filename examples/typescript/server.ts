/**
 * A complete Vigia webhook receiver: a Fastify app using `vigia/receiver`.
 *
 * - the JSON body is kept as raw bytes (the signature covers the bytes as sent; re-serialised
 *   JSON would not verify);
 * - verifyWebhook recomputes the HMAC, compares it in constant time and refuses a timestamp more
 *   than 300 seconds from now: 400 for a stale timestamp, 401 for a bad signature;
 * - IdempotencyDeduplicator answers a repeated Idempotency-Key with 200 without processing it
 *   twice.
 *
 * Run: VIGIA_SECRET=whsec_... TLS_CERT=cert.pem TLS_KEY=key.pem PORT=9443 npx tsx server.ts
 * Each request is reported as one JSON line on stdout.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { IdempotencyDeduplicator, verifyWebhook, WebhookVerificationError } from 'vigia/receiver';

const secret = process.env.VIGIA_SECRET ?? '';
const port = Number(process.env.PORT ?? 9443);
const host = process.env.HOST ?? '127.0.0.1';
const seen = new IdempotencyDeduplicator();

const report = (fields: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(fields)}\n`);

const app = Fastify({
  https: { cert: readFileSync(process.env.TLS_CERT ?? 'cert.pem'), key: readFileSync(process.env.TLS_KEY ?? 'key.pem') },
  bodyLimit: 1024 * 1024,
});

// Keep the body as the raw bytes received; verifyWebhook parses it after checking them.
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

app.post('/webhook', async (req, reply) => {
  try {
    const event = verifyWebhook({ rawBody: req.body as Buffer, headers: req.headers, secret });
    const key = String(req.headers['idempotency-key'] ?? event.id);
    if (!seen.firstSeen(key)) {
      report({ result: 'duplicate', id: key, event: event.event });
      return reply.code(200).send({ message: 'already processed' });
    }
    // Process the event here. Order is not guaranteed: use occurredAt and alert.status.
    report({ result: 'accepted', id: key, event: event.event, alertId: event.alert.id, status: event.alert.status });
    return reply.code(200).send({ message: 'ok' });
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) throw err;
    report({ result: err.code === 'stale_timestamp' ? 'stale' : 'bad_signature' });
    return reply.code(err.statusCode).send({ message: err.message });
  }
});

await app.listen({ port, host });
report({ listening: `https://${host}:${port}` });
