/**
 * Tokens for a tenant connection through @azure/msal-node: one ConfidentialClientApplication per
 * connection (and version of it), with a client secret or a certificate. msal keeps one cached
 * token per audience and asks for a new one before the cached one expires. Its network calls go
 * through our transport (destination safety, time and size limits), and the authority's metadata
 * is given to it, so it never reaches Microsoft's hosts when `authorityHost` is overridden.
 */
import { ConfidentialClientApplication, LogLevel, type Configuration } from '@azure/msal-node';
import type { INetworkModule, NetworkRequestOptions, NetworkResponse } from '@azure/msal-common/node';
import { entraAuthority } from '../../entra-authority.js';
import { AUDIENCES, type Audience } from '../connection/endpoints.js';
import { certificateFacts, type TenantCredentials } from '../connection/tenant-input.js';
import { TokenRefusedError, TokenRequestError, TokenUnavailableError, refusalOf, tokenRetryAfterSeconds } from './token-errors.js';
import type { Transport } from './transport.js';
import { VendorCallError } from './transport.js';

export { TokenRefusedError, TokenRequestError, TokenUnavailableError };

/** msal's network calls through the transport; `beforeCall` lets the caller count and budget them. */
function networkModule(transport: Transport, beforeCall: () => Promise<void>, onFailure: (err: Error) => void, now: () => number): INetworkModule {
  const call = async <T>(method: 'GET' | 'POST', url: string, options?: NetworkRequestOptions): Promise<NetworkResponse<T>> => {
    let res: Awaited<ReturnType<Transport>>;
    try {
      await beforeCall();
      res = await transport({ method, url, headers: options?.headers ?? {}, body: options?.body });
    } catch (err) {
      // msal replaces what the network client throws by a generic "network_error": keep ours.
      onFailure(err as Error);
      throw err;
    }
    let body: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(res.body.toString('utf8'));
      if (parsed && typeof parsed === 'object') body = parsed;
    } catch {
      body = {};
    }
    if (res.status < 200 || res.status >= 300) {
      // Sorted here, from the status and the AADSTS code, rather than from msal's error: msal
      // reports a 429 like a refusal and would keep it in a throttle cache of its own.
      const failure =
        res.status === 429 || res.status >= 500 ? new TokenUnavailableError(res.status, tokenRetryAfterSeconds(res.headers, now())) : refusalOf(res.status, body);
      onFailure(failure);
      throw failure;
    }
    return { status: res.status, headers: res.headers, body: body as T };
  };
  return {
    sendGetRequestAsync: (url, options) => call('GET', url, options),
    sendPostRequestAsync: (url, options) => call('POST', url, options),
  };
}

export interface TokenSource {
  tenantId: string;
  clientId: string;
  authorityHost: string;
  credentials: TenantCredentials;
}

/** The msal configuration for one connection: authority, metadata given up front, our network. */
export function msalConfiguration(source: TokenSource, network: INetworkModule): Configuration {
  const creds = source.credentials;
  return {
    auth: {
      clientId: source.clientId,
      ...entraAuthority(source.authorityHost, source.tenantId),
      ...('clientSecret' in creds
        ? { clientSecret: creds.clientSecret }
        : (() => {
            const facts = certificateFacts(creds.certificatePem, creds.privateKeyPem);
            return { clientCertificate: { thumbprintSha256: facts.thumbprintSha256, privateKey: creds.privateKeyPem, x5c: creds.certificatePem } };
          })()),
    },
    system: {
      networkClient: network,
      // msal's own log lines may carry request details; it stays silent.
      loggerOptions: { loggerCallback: () => {}, piiLoggingEnabled: false, logLevel: LogLevel.Error },
    },
  };
}

export class TenantTokens {
  private readonly app: ConfidentialClientApplication;
  private networkFailure: Error | null = null;
  /** Throttled or unavailable: no call before this time (Retry-After), the same error instead. */
  private pause: { until: number; error: TokenUnavailableError } | null = null;
  private readonly renew = new Set<Audience>();

  constructor(
    source: TokenSource,
    transport: Transport,
    beforeCall: () => Promise<void> = async () => {},
    private readonly now: () => number = Date.now,
  ) {
    const network = networkModule(transport, beforeCall, (err) => {
      this.networkFailure = err;
    }, now);
    this.app = new ConfidentialClientApplication(msalConfiguration(source, network));
  }

  /** The next token of each audience comes from the endpoint, not the cache (once each). */
  renewNext(): void {
    for (const audience of Object.keys(AUDIENCES) as Audience[]) this.renew.add(audience);
  }

  /** A valid access token for the audience (cached by msal; renewed before it expires). */
  async get(audience: Audience): Promise<string> {
    if (this.pause && this.now() < this.pause.until) {
      const left = Math.ceil((this.pause.until - this.now()) / 1000);
      throw new TokenUnavailableError(this.pause.error.status, left);
    }
    this.pause = null;
    try {
      const skipCache = this.renew.delete(audience);
      const result = await this.app.acquireTokenByClientCredential({ scopes: [AUDIENCES[audience]], skipCache });
      if (!result?.accessToken) throw new TokenRefusedError('no_token');
      return result.accessToken;
    } catch (err) {
      const failure = this.networkFailure;
      this.networkFailure = null;
      if (failure && (err as { errorCode?: string }).errorCode === 'network_error') {
        if (failure instanceof TokenUnavailableError) this.pause = { until: this.now() + failure.retryAfterSeconds * 1000, error: failure };
        throw failure;
      }
      throw classifyTokenError(err);
    }
  }
}

/** Our errors pass; msal's become a TokenRefusedError carrying only the OAuth error code. */
function classifyTokenError(err: unknown): Error {
  if (err instanceof VendorCallError || err instanceof TokenRefusedError || err instanceof TokenUnavailableError || err instanceof TokenRequestError) return err;
  if (err instanceof Error && (err as { errorCode?: string }).errorCode === undefined) return err;
  const code = String((err as { errorCode?: string }).errorCode ?? 'unknown').replace(/[^\w.-]/g, '').slice(0, 80);
  return new TokenRefusedError(code || 'unknown');
}
