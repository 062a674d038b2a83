/**
 * The monitoring core's way out: the guarded client's rules (https only, every resolved address
 * checked at connection time, allowlist, no redirects, no proxy) with what vendor APIs need on
 * top — answers read as a stream and abandoned past a size limit (a 50 MB answer is never
 * buffered), and one time limit covering connect, headers and the whole body.
 */
import { Agent, request } from 'undici';
import type { AppContext } from '../../context.js';
import { Allowlist, UnsafeDestinationError, checkDestinationUrl } from '../../delivery/address-policy.js';
import { guardedLookup, isBlocked, resolverFor } from '../../delivery/guarded-http.js';
import { originPoolFactory } from '../../delivery/origin-pool.js';
import { type ConnectionCause, connectionCause, connectionText } from './connection-cause.js';

export interface VendorRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface VendorResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type VendorFailureKind = 'timeout' | 'network' | 'blocked' | 'too_large';

/** A call that produced no usable answer. The message names no address and no credential. */
export class VendorCallError extends Error {
  constructor(
    readonly kind: VendorFailureKind,
    message: string,
    /** For `network`, `timeout` and `blocked`: what went wrong with the connection. */
    readonly connection: ConnectionCause | null = null,
  ) {
    super(message);
    this.name = 'VendorCallError';
  }
}

export interface TransportOptions {
  timeoutMs: number;
  maxResponseBytes: number;
}

export const DEFAULT_TRANSPORT: TransportOptions = { timeoutMs: 30_000, maxResponseBytes: 8 * 1024 * 1024 };

export interface Transport {
  (req: VendorRequest): Promise<VendorResponse>;
  readonly options: TransportOptions;
  close(): Promise<void>;
  /** Closes at once, aborting calls still in flight. */
  destroy(): Promise<void>;
}

/** The destination-safety rules refused the address: a connection failure of its own cause, named. */
const blocked = () => new VendorCallError('blocked', connectionText('blocked', null), 'blocked');

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** Connections kept per origin. */
const CONNECTIONS = 8;

/** The error of a request written to a connection the server had closed before answering. */
function isStaleConnection(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

export function createTransport(ctx: Pick<AppContext, 'config'> & Partial<AppContext>, opts: Partial<TransportOptions> = {}): Transport {
  const options = { ...DEFAULT_TRANSPORT, ...opts };
  const allowlist = new Allowlist(ctx.config.destinationAllowlist);
  const resolver = resolverFor(ctx as AppContext);
  const agent = new Agent({
    connect: { lookup: guardedLookup(resolver, allowlist) as never, timeout: options.timeoutMs, rejectUnauthorized: true },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 4_000,
    connections: CONNECTIONS,
    factory: originPoolFactory,
  });
  /**
   * Sends the request. A GET that meets a connection the server had already closed (it ended an
   * idle keep-alive connection just as we reused it: ECONNRESET, "other side closed") is sent again
   * — nothing was answered, and a GET changes nothing. Each such failure removes one stale pooled
   * connection, so after at most CONNECTIONS more tries a new connection takes it. Other methods
   * are never repeated (a status check or a query may have been received).
   */
  const requestOnce = async (req: VendorRequest, signal: AbortSignal) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await request(req.url, { dispatcher: agent, method: req.method, headers: req.headers, body: req.body, signal });
      } catch (err) {
        if (req.method !== 'GET' || signal.aborted || attempt >= CONNECTIONS || !isStaleConnection(err)) throw err;
      }
    }
  };
  const tooLarge = () => new VendorCallError('too_large', `the answer was larger than ${options.maxResponseBytes} bytes`);

  const send = (async (req: VendorRequest): Promise<VendorResponse> => {
    try {
      checkDestinationUrl(req.url, allowlist);
    } catch (err) {
      if (err instanceof UnsafeDestinationError) throw blocked();
      throw err;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    try {
      const res = await requestOnce(req, controller.signal);
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxResponseBytes) {
        res.body.destroy();
        throw tooLarge();
      }
      const chunks: Buffer[] = [];
      let read = 0;
      for await (const chunk of res.body) {
        read += (chunk as Buffer).length;
        if (read > options.maxResponseBytes) {
          res.body.destroy();
          throw tooLarge();
        }
        chunks.push(chunk as Buffer);
      }
      return { status: res.statusCode, headers: flatHeaders(res.headers as Record<string, string | string[] | undefined>), body: Buffer.concat(chunks) };
    } catch (err) {
      if (err instanceof VendorCallError) throw err;
      const timedOut = `no complete answer within ${options.timeoutMs} ms`;
      if (controller.signal.aborted) throw new VendorCallError('timeout', timedOut, 'timeout');
      if (isBlocked(err)) throw blocked();
      const { cause, code } = connectionCause(err);
      if (cause === 'timeout') throw new VendorCallError('timeout', timedOut, 'timeout');
      throw new VendorCallError('network', connectionText(cause, code), cause);
    } finally {
      clearTimeout(timer);
    }
  }) as Transport;
  Object.defineProperty(send, 'options', { value: options });
  send.close = () => agent.close();
  send.destroy = () => agent.destroy();
  return send;
}
