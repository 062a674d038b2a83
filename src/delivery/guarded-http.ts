/**
 * The one way out (docs/delivery.md, "Destination safety"). Every outbound call of the delivery pipeline and of the
 * connectors goes through `createGuardedSend`: https only, no credentials in the URL, every
 * resolved address checked when the connection is made (so DNS rebinding cannot reach a private
 * address), IP literals checked before connecting, redirects never followed, no proxy (our own
 * undici Agent, so HTTP(S)_PROXY is ignored), one time limit covering connect, headers and body,
 * and a generic failure text.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { Agent, request } from 'undici';
import type { AppContext } from '../context.js';
import type { OutboundRequest, OutboundResponse, Send } from './connectors/types.js';
import { Allowlist, UnsafeDestinationError, checkDestinationUrl, isRefusedAddress } from './address-policy.js';
import { originPoolFactory } from './origin-pool.js';

/** Resolves a host name to all its addresses (injectable so tests can simulate DNS rebinding). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Keyed by the context's configuration, the one object every copy of an application's context
 * shares (the admin API hands its routes a copy with an audited database): a resolver set on the
 * context holds for all of them.
 */
const resolvers = new WeakMap<object, Resolver>();

/** Overrides the resolver used for one application (save-time checks and deliveries). Tests only. */
export function setResolver(ctx: Pick<AppContext, 'config'>, resolver: Resolver): void {
  resolvers.set(ctx.config, resolver);
}

export function resolverFor(ctx: Pick<AppContext, 'config'>): Resolver {
  return resolvers.get(ctx.config) ?? systemResolver;
}

/** Generic texts, by design: the receiver's network is none of our users' business. */
export const GENERIC_ERRORS = { timeout: 'timeout', network: 'connection failed', blocked: 'connection failed' } as const;

/** A call that produced no HTTP answer: timeout, reset, refused, or an address the rules refuse. */
export class DeliveryNetworkError extends Error {
  constructor(readonly kind: keyof typeof GENERIC_ERRORS) {
    super(GENERIC_ERRORS[kind]);
    this.name = 'DeliveryNetworkError';
  }
}

class BlockedAddressError extends Error {
  readonly code = 'VIGIA_BLOCKED_ADDRESS';
}

/** Largest response text kept for connectors to read and for history; the rest is discarded. */
export const MAX_RESPONSE_TEXT = 64 * 1024;
/** We stop reading a response beyond this many bytes (the connection is dropped). */
const MAX_RESPONSE_READ = 1024 * 1024;

export interface GuardedSendOptions {
  timeoutMs?: number;
  resolver?: Resolver;
  allowlist?: readonly string[];
  /** Max open connections per origin. */
  connectionsPerOrigin?: number;
}

export interface GuardedSend extends Send {
  close(): Promise<void>;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A net/tls `lookup` that resolves through `resolver` and refuses if any address is refused. */
export function guardedLookup(resolver: Resolver, allowlist: Allowlist) {
  return (hostname: string, options: { all?: boolean; family?: number }, cb: LookupCallback): void => {
    resolver(hostname).then(
      (addrs) => {
        if (addrs.length === 0) return cb(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '');
        if (!allowlist.hasHost(hostname)) {
          for (const a of addrs) {
            if (isRefusedAddress(a.address) && !allowlist.hasAddress(a.address)) return cb(new BlockedAddressError('blocked'), '');
          }
        }
        if (options?.all) return cb(null, addrs);
        const first = addrs.find((a) => !options?.family || a.family === options.family) ?? addrs[0]!;
        return cb(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => cb(err, ''),
    );
  };
}

/** URL texts remembered as checked per client at most (then the memory starts afresh). */
const CHECKED_URLS_KEPT = 1024;

export function isBlocked(err: unknown): boolean {
  for (let e = err as any, i = 0; e && i < 5; e = e.cause, i++) {
    if (e instanceof BlockedAddressError || e?.code === 'VIGIA_BLOCKED_ADDRESS') return true;
  }
  return false;
}

export function createGuardedSendRaw(opts: GuardedSendOptions & { allowlist: readonly string[]; resolver: Resolver; timeoutMs: number }): GuardedSend {
  const allowlist = new Allowlist(opts.allowlist);
  const timeoutMs = opts.timeoutMs;
  const agent = new Agent({
    connect: { lookup: guardedLookup(opts.resolver, allowlist) as never, timeout: timeoutMs, rejectUnauthorized: true },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
    connections: opts.connectionsPerOrigin ?? 32,
    factory: originPoolFactory,
  });

  // URL texts that passed the check: it depends only on the text and this client's allowlist, so
  // a busy destination is parsed and checked once, not before every send (names are still
  // resolved and checked at connection time). Bounded; failures are never remembered.
  const checked = new Set<string>();
  const send = (async (req: OutboundRequest): Promise<OutboundResponse> => {
    if (!checked.has(req.url)) {
      try {
        checkDestinationUrl(req.url, allowlist);
      } catch (err) {
        if (err instanceof UnsafeDestinationError) throw new DeliveryNetworkError('blocked');
        throw err;
      }
      if (checked.size >= CHECKED_URLS_KEPT) checked.clear();
      checked.add(req.url);
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const res = await request(req.url, {
        dispatcher: agent,
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal: controller.signal,
      });
      // Read the body inside the same time limit; keep a bounded prefix.
      const chunks: Buffer[] = [];
      let read = 0;
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        read += buf.length;
        if (read <= MAX_RESPONSE_TEXT) chunks.push(buf);
        else if (read - buf.length < MAX_RESPONSE_TEXT) chunks.push(buf.subarray(0, MAX_RESPONSE_TEXT - (read - buf.length)));
        if (read > MAX_RESPONSE_READ) {
          res.body.destroy();
          break;
        }
      }
      return {
        statusCode: res.statusCode,
        headers: res.headers as Record<string, string | string[] | undefined>,
        body: Buffer.concat(chunks).toString('utf8'),
      };
    } catch (err) {
      if (controller.signal.aborted) throw new DeliveryNetworkError('timeout');
      if (isBlocked(err)) throw new DeliveryNetworkError('blocked');
      const code = (err as { code?: string }).code ?? '';
      if (/TIMEOUT/i.test(code)) throw new DeliveryNetworkError('timeout');
      throw new DeliveryNetworkError('network');
    } finally {
      clearTimeout(timer);
    }
  }) as GuardedSend;
  send.close = () => agent.close();
  return send;
}

/**
 * The guarded `send` for a context: its delivery time limit, allowlist and resolver. Connectors
 * receive it from the pipeline; the connector's own test action may create one here.
 */
export function createGuardedSend(ctx: AppContext, opts: GuardedSendOptions = {}): GuardedSend {
  return createGuardedSendRaw({
    ...opts,
    timeoutMs: opts.timeoutMs ?? ctx.config.deliveryTimeoutMs,
    allowlist: opts.allowlist ?? ctx.config.destinationAllowlist,
    resolver: opts.resolver ?? resolverFor(ctx),
  });
}

/**
 * Save-time check of a destination URL: the text rules, then the current DNS answers. A name that
 * does not resolve now (no answer, an error, or none within 3 s) is refused: an address a
 * credential goes to must exist when it is saved. `unresolved: 'accept'` waves it through
 * instead, for an address that carries no credential (a webhook URL, checked again on every
 * connection). Allowlisted hosts and IP literals are not looked up.
 */
export async function checkDestinationUrlResolved(
  ctx: AppContext,
  text: string,
  field = 'url',
  opts: { unresolved?: 'refuse' | 'accept' } = {},
): Promise<URL> {
  const allowlist = new Allowlist(ctx.config.destinationAllowlist);
  const url = checkDestinationUrl(text, allowlist, field);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allowlist.hasHost(host) || /^[\d.]+$/.test(host) || host.includes(':')) return url;
  let addrs: LookupAddress[] = [];
  try {
    addrs = await Promise.race([
      resolverFor(ctx)(host),
      new Promise<LookupAddress[]>((resolve) => setTimeout(() => resolve([]), 3000).unref()),
    ]);
  } catch {
    addrs = [];
  }
  if (addrs.length === 0) {
    if (opts.unresolved === 'accept') return url;
    throw new UnsafeDestinationError(`${field}: the host ${host} does not resolve (no DNS answer); give a host name that exists`);
  }
  if (addrs.some((a) => isRefusedAddress(a.address) && !allowlist.hasAddress(a.address))) {
    throw new UnsafeDestinationError(`${field} points to a private or reserved address`);
  }
  return url;
}
