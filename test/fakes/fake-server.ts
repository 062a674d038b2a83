/**
 * Base of the vendor fakes: a real HTTPS server on loopback (test CA certificate) that records
 * every request, validates it (each fake's job), answers like the vendor and offers programmable
 * faults — "the next N requests answer X", "delay beyond the caller's timeout", "drop the
 * connection", each optionally AFTER the request took effect (the lost-answer case that makes
 * duplicate-safe creation necessary).
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
// @ts-expect-error — plain .mjs script without types
import { makeTestCerts } from '../../scripts/make-test-certs.mjs';

export interface RecordedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** Parsed JSON body, or undefined. */
  json: unknown;
  /** Status the fake answered (undefined when the connection was dropped or held). */
  status?: number;
  /** Spec violations found in this request (empty when valid). */
  violations: string[];
}

export interface FakeReply {
  status: number;
  headers?: Record<string, string>;
  /** Objects are sent as JSON. */
  body?: string | object;
}

export type Fault =
  | { kind: 'reply'; reply: FakeReply }
  /** Holds the answer for `ms` (beyond the caller's timeout), then drops the connection. */
  | { kind: 'delay'; ms: number; afterHandling?: boolean }
  /** Destroys the connection without an answer. */
  | { kind: 'drop'; afterHandling?: boolean }
  /**
   * Answers `status` with everything the request carried, as careless vendors do in an error:
   * the request line, the headers and the body as received, and the same again URL-encoded and
   * as a query string (`?authorization=Basic%20…`).
   */
  | { kind: 'echo'; status: number };

interface QueuedFault {
  remaining: number;
  fault: Fault;
  match?: (r: RecordedRequest) => boolean;
}

export function certFiles(): { cert: string; key: string; caCert: string } {
  return makeTestCerts();
}

export abstract class FakeVendor {
  readonly requests: RecordedRequest[] = [];
  private server: Server | null = null;
  private sockets = new Set<Socket>();
  private faults: QueuedFault[] = [];
  private timers = new Set<NodeJS.Timeout>();
  url = '';

  /** Vendor's answer to a request that violates its API description. */
  protected abstract violationReply(errors: string[], req: RecordedRequest): FakeReply;
  /** Vendor's behaviour for a valid (or yet to be validated) request. */
  protected abstract handle(req: RecordedRequest): FakeReply | Promise<FakeReply>;

  /** Every violation recorded so far, with the request line. */
  get violations(): Array<{ request: string; errors: string[] }> {
    return this.requests.filter((r) => r.violations.length > 0).map((r) => ({ request: `${r.method} ${r.path}?${r.query}`, errors: r.violations }));
  }

  /** The next `count` requests (matching `match`, if given) get `fault` instead of normal handling. */
  failNext(count: number, fault: Fault, match?: (r: RecordedRequest) => boolean): void {
    this.faults.push({ remaining: count, fault, match });
  }

  /** Marks a request as violating the spec and returns the vendor's 400. */
  protected violate(req: RecordedRequest, errors: string[]): FakeReply {
    req.violations.push(...errors);
    return this.violationReply(errors, req);
  }

  async start(): Promise<this> {
    const files = certFiles();
    this.server = createServer({ cert: readFileSync(files.cert), key: readFileSync(files.key) }, (req, res) => {
      void this.onRequest(req, res);
    });
    this.server.on('secureConnection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const s of this.sockets) s.destroy();
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }

  private takeFault(r: RecordedRequest): Fault | null {
    const q = this.faults.find((f) => f.remaining > 0 && (!f.match || f.match(r)));
    if (!q) return null;
    q.remaining -= 1;
    return q.fault;
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const u = new URL(req.url ?? '/', 'https://fake.invalid');
    let json: unknown;
    if (body !== '') {
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
    }
    const r: RecordedRequest = { method: req.method ?? 'GET', path: u.pathname, query: u.searchParams, headers: req.headers, body, json, violations: [] };
    this.requests.push(r);

    const fault = this.takeFault(r);
    if (fault?.kind === 'reply') return this.reply(res, r, fault.reply);
    if (fault?.kind === 'echo') return this.reply(res, r, echoReply(fault.status, req, r));
    if (fault && !fault.afterHandling) return this.withhold(res, fault);
    let answer: FakeReply;
    try {
      answer = await this.handle(r);
    } catch (err) {
      answer = { status: 500, body: { error: String(err) } };
    }
    if (fault) return this.withhold(res, fault);
    this.reply(res, r, answer);
  }

  private withhold(res: ServerResponse, fault: Fault): void {
    if (fault.kind === 'drop') {
      res.socket?.destroy();
      return;
    }
    if (fault.kind === 'delay') {
      const t = setTimeout(() => {
        this.timers.delete(t);
        res.socket?.destroy();
      }, fault.ms);
      this.timers.add(t);
    }
  }

  private reply(res: ServerResponse, r: RecordedRequest, a: FakeReply): void {
    r.status = a.status;
    const isText = typeof a.body === 'string';
    const payload = a.body === undefined ? '' : isText ? (a.body as string) : JSON.stringify(a.body);
    res.writeHead(a.status, {
      ...(a.body !== undefined && !isText ? { 'content-type': 'application/json; charset=utf-8' } : {}),
      ...a.headers,
    });
    res.end(payload);
  }
}

function echoReply(status: number, req: IncomingMessage, r: RecordedRequest): FakeReply {
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
  // The credential-bearing header first, so that it falls inside any excerpt of the answer.
  const { authorization, ...rest } = headers;
  const asQuery = new URLSearchParams(authorization ? { authorization, ...rest } : rest).toString();
  return {
    status,
    body: {
      replay: `${req.url}?${asQuery}&body=${encodeURIComponent(r.body)}`,
      encoded: encodeURIComponent(`${authorization ?? ''} ${r.body}`),
      error: 'request refused',
      request: `${r.method} ${req.url}`,
      headers,
      body: r.body,
    },
  };
}

/** `Basic` credentials of a request, or null. */
export function basicCredentials(r: RecordedRequest): { user: string; password: string } | null {
  const h = r.headers.authorization;
  if (typeof h !== 'string' || !/^Basic /i.test(h)) return null;
  const decoded = Buffer.from(h.slice(6).trim(), 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? null : { user: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

export function contentTypeIs(r: RecordedRequest, type: string): boolean {
  const ct = r.headers['content-type'];
  return typeof ct === 'string' && ct.split(';')[0]!.trim().toLowerCase() === type;
}
