/**
 * A real HTTPS receiver on loopback for delivery tests (and the connector tests may reuse it).
 * It records every request byte for byte (raw body, headers) and answers as programmed: a status
 * sequence, a delay, a connection reset, or never answering (timeout).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CERT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '.test-certs');

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Wall-clock receipt time (ms). */
  receivedAt: number;
  /** What the receiver did with it. */
  answered: Answer;
}

/** One programmed answer. */
export type Answer =
  | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number; stallBody?: boolean }
  | { reset: true }
  | { hang: true };

export interface TestReceiver {
  /** https://127.0.0.1:<port> */
  origin: string;
  port: number;
  requests: RecordedRequest[];
  /** Answers used in order for the next requests; after the list, `fallback` answers. */
  script(answers: Answer[]): void;
  /** A function deciding the answer for each request (overrides script and fallback). */
  handle(fn: ((req: RecordedRequest, index: number) => Answer) | null): void;
  fallback: Answer;
  /** Resolves when at least n requests have been recorded. */
  waitFor(n: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  reset(): void;
  close(): Promise<void>;
}

export async function startReceiver(opts: { port?: number; host?: string } = {}): Promise<TestReceiver> {
  const tls = { cert: readFileSync(path.join(CERT_DIR, 'server.crt')), key: readFileSync(path.join(CERT_DIR, 'server.key')) };
  const requests: RecordedRequest[] = [];
  let queue: Answer[] = [];
  let fn: ((req: RecordedRequest, index: number) => Answer) | null = null;
  const sockets = new Set<Socket>();
  let waiters: { n: number; resolve: () => void }[] = [];

  const server: Server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
        receivedAt: Date.now(),
        answered: receiver.fallback,
      };
      const index = requests.length;
      rec.answered = fn ? fn(rec, index) : (queue.shift() ?? receiver.fallback);
      requests.push(rec);
      waiters = waiters.filter((w) => (requests.length >= w.n ? (w.resolve(), false) : true));
      const a = rec.answered;
      if ('reset' in a) {
        // Drop the connection without an answer (the client sees a reset / closed socket).
        req.socket.destroy();
        return;
      }
      if ('hang' in a) return; // never answer: the caller's time limit fires
      const reply = () => {
        if (res.destroyed) return;
        if (a.stallBody) {
          // Headers and part of the body, then nothing: the body read must time out too.
          res.writeHead(a.status, { 'content-type': 'application/json', 'content-length': '1000' });
          res.write('{"partial":');
          return;
        }
        res.writeHead(a.status, { 'content-type': 'application/json', ...(a.headers ?? {}) }).end(a.body ?? '{"ok":true}');
      };
      if (a.delayMs) setTimeout(reply, a.delayMs);
      else reply();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('tlsClientError', () => undefined);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, host, resolve));
  const port = (server.address() as { port: number }).port;

  const receiver: TestReceiver = {
    origin: `https://${host}:${port}`,
    port,
    requests,
    fallback: { status: 200 },
    script(answers) {
      queue = [...answers];
    },
    handle(f) {
      fn = f;
    },
    waitFor(n, timeoutMs = 30_000) {
      if (requests.length >= n) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${requests.length} of ${n} requests`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests);
          },
        });
      });
    },
    reset() {
      requests.length = 0;
      queue = [];
      fn = null;
      receiver.fallback = { status: 200 };
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
