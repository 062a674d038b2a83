/**
 * Entra ID as far as a confidential client with client credentials needs it: the token endpoint
 * (client secret or a client assertion signed by the app's certificate), the OpenID metadata and
 * the instance-discovery document that @azure/msal-node reads, and verification of the bearer
 * tokens it issued (signature, expiry, audience) for the API families.
 */
import { X509Certificate, createHmac, randomBytes, randomUUID, timingSafeEqual, verify, constants as cryptoConstants } from 'node:crypto';
import { TOKEN_REFUSALS, type TokenRefusalKind } from './token-refusals.js';
import type { ApiFamily } from './types.js';

export const AUDIENCES = {
  powerbi: 'https://analysis.windows.net/powerbi/api',
  fabric: 'https://api.fabric.microsoft.com',
  arm: 'https://management.azure.com',
  /** Eventhouse (Kusto) query endpoints: not the Fabric API's audience. */
  kusto: 'https://kusto.kusto.windows.net',
  /** Exchange Online: SMTP AUTH with XOAUTH2 (an e-mail relay's token, no API family here). */
  exchange: 'https://outlook.office365.com',
} as const;

export function audienceOf(family: ApiFamily): string | null {
  if (family === 'powerbi' || family === 'powerbi-admin') return AUDIENCES.powerbi;
  if (family === 'fabric' || family === 'fabric-admin') return AUDIENCES.fabric;
  if (family === 'arm' || family === 'cost') return AUDIENCES.arm;
  if (family === 'kusto') return AUDIENCES.kusto;
  return null;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface EntraConfig {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** Lower-case hex thumbprints (SHA-1 and/or SHA-256) of the accepted certificate. */
  thumbprints: string[];
  /** Public key of the accepted certificate, to verify assertion signatures. */
  certificatePem?: string;
  tokenLifetimeSeconds: number;
  now: () => number;
}

export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export type TokenRefusal = null | TokenRefusalKind;

export class Entra {
  private readonly key = randomBytes(32);

  constructor(readonly config: EntraConfig) {}

  static thumbprintsOf(certificatePem: string | undefined, thumbprint: string | undefined): string[] {
    const out: string[] = [];
    if (thumbprint) out.push(thumbprint.replace(/[^0-9a-f]/gi, '').toLowerCase());
    if (certificatePem) {
      const cert = new X509Certificate(certificatePem);
      out.push(cert.fingerprint.replace(/:/g, '').toLowerCase(), cert.fingerprint256.replace(/:/g, '').toLowerCase());
    }
    return out;
  }

  openIdConfiguration(origin: string, tenant: string): Record<string, unknown> {
    const base = `${origin}/${tenant}`;
    return {
      token_endpoint: `${base}/oauth2/v2.0/token`,
      token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
      jwks_uri: `${origin}/${tenant}/discovery/v2.0/keys`,
      response_modes_supported: ['query', 'fragment', 'form_post'],
      subject_types_supported: ['pairwise'],
      id_token_signing_alg_values_supported: ['RS256'],
      response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
      scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
      issuer: `${origin}/${this.config.tenantId}/v2.0`,
      request_uri_parameter_supported: false,
      authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
      device_authorization_endpoint: `${base}/oauth2/v2.0/devicecode`,
      http_logout_supported: true,
      frontchannel_logout_supported: true,
      end_session_endpoint: `${base}/oauth2/v2.0/logout`,
      claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'tid'],
      tenant_region_scope: 'SA',
      cloud_instance_name: new URL(origin).host,
    };
  }

  instanceDiscovery(origin: string): Record<string, unknown> {
    const host = new URL(origin).host;
    return {
      tenant_discovery_endpoint: `${origin}/${this.config.tenantId}/v2.0/.well-known/openid-configuration`,
      'api-version': '1.1',
      metadata: [{ preferred_network: host, preferred_cache: host, aliases: [host] }],
    };
  }

  private error(status: number, error: string, code: number, description: string): TokenAnswer {
    return {
      status,
      body: {
        error,
        error_description: `AADSTS${code}: ${description} Trace ID: ${randomUUID()} Correlation ID: ${randomUUID()} Timestamp: ${new Date(this.config.now()).toISOString()}`,
        error_codes: [code],
        timestamp: `${new Date(this.config.now()).toISOString().replace('T', ' ').slice(0, 19)}Z`,
        trace_id: randomUUID(),
        correlation_id: randomUUID(),
      },
    };
  }

  /** POST /{tenant}/oauth2/v2.0/token with a form body. */
  token(tenant: string, form: URLSearchParams, tokenEndpoint: string, refusal: TokenRefusal): TokenAnswer {
    const c = this.config;
    if (tenant.toLowerCase() !== c.tenantId.toLowerCase()) return this.error(400, 'invalid_request', 90002, `Tenant '${tenant}' not found.`);
    if (form.get('grant_type') !== 'client_credentials') return this.error(400, 'unsupported_grant_type', 70003, 'The app requested an unsupported grant type.');
    const clientId = form.get('client_id') ?? '';
    if (!safeEqual(clientId.toLowerCase(), c.clientId.toLowerCase())) {
      return this.error(400, 'unauthorized_client', 700016, `Application with identifier '${clientId}' was not found in the directory.`);
    }
    if (refusal) {
      const r = TOKEN_REFUSALS[refusal];
      const answer = this.error(r.status, r.error, r.code, r.text);
      if (refusal === 'unavailable') answer.headers = { 'Retry-After': '30' };
      return answer;
    }
    const secret = form.get('client_secret');
    const assertion = form.get('client_assertion');
    if (secret !== null) {
      if (!safeEqual(secret, c.clientSecret)) return this.error(401, 'invalid_client', 7000215, 'Invalid client secret provided.');
    } else if (assertion !== null) {
      if (form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') {
        return this.error(400, 'invalid_request', 50027, 'Invalid client_assertion_type.');
      }
      const problem = this.checkAssertion(assertion, tokenEndpoint);
      if (problem) return this.error(401, 'invalid_client', 700027, `Client assertion failed signature validation: ${problem}.`);
    } else {
      return this.error(401, 'invalid_client', 7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.");
    }
    const scope = (form.get('scope') ?? '').split(' ').filter(Boolean);
    const resource = scope.length === 1 && scope[0]!.endsWith('/.default') ? scope[0]!.slice(0, -'/.default'.length) : null;
    if (!resource || !Object.values(AUDIENCES).includes(resource as never)) {
      return this.error(400, 'invalid_scope', 1002012, `The provided value for scope ${scope.join(' ')} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier.`);
    }
    const iat = Math.floor(c.now() / 1000);
    const payload = { aud: resource, iss: `https://sts.windows.net/${c.tenantId}/`, iat, nbf: iat, exp: iat + c.tokenLifetimeSeconds, appid: c.clientId, tid: c.tenantId, oid: c.clientId, idtyp: 'app' };
    const head = `${b64url(JSON.stringify({ typ: 'JWT', alg: 'HS256' }))}.${b64url(JSON.stringify(payload))}`;
    const token = `${head}.${b64url(createHmac('sha256', this.key).update(head).digest())}`;
    return { status: 200, body: { token_type: 'Bearer', expires_in: c.tokenLifetimeSeconds, ext_expires_in: c.tokenLifetimeSeconds, access_token: token } };
  }

  /** A reason the client assertion is not acceptable, or null. */
  private checkAssertion(jwt: string, tokenEndpoint: string): string | null {
    const c = this.config;
    const parts = jwt.split('.');
    if (parts.length !== 3) return 'not a JWT';
    let header: Record<string, string>;
    let payload: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
      payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    } catch {
      return 'unreadable JWT';
    }
    const thumb = header['x5t#S256'] ?? header.x5t;
    if (!thumb) return 'no x5t or x5t#S256 header';
    const hex = Buffer.from(thumb, 'base64url').toString('hex');
    if (!c.thumbprints.includes(hex)) return 'unknown certificate thumbprint';
    if (!c.certificatePem) return 'no certificate registered to verify the signature';
    const data = Buffer.from(`${parts[0]}.${parts[1]}`);
    const sig = Buffer.from(parts[2]!, 'base64url');
    const key = new X509Certificate(c.certificatePem).publicKey;
    let ok = false;
    if (header.alg === 'RS256') ok = verify('sha256', data, key, sig);
    else if (header.alg === 'PS256') ok = verify('sha256', data, { key, padding: cryptoConstants.RSA_PKCS1_PSS_PADDING, saltLength: cryptoConstants.RSA_PSS_SALTLEN_AUTO }, sig);
    else return `unsupported alg ${header.alg}`;
    if (!ok) return 'bad signature';
    if (payload.iss !== c.clientId || payload.sub !== c.clientId) return 'iss and sub must be the client id';
    if (typeof payload.aud !== 'string' || payload.aud.toLowerCase() !== tokenEndpoint.toLowerCase()) return `aud must be ${tokenEndpoint}`;
    if (typeof payload.exp !== 'number' || payload.exp * 1000 < c.now()) return 'expired';
    return null;
  }

  /** Checks a bearer token for an audience: null when valid, else the reason. */
  verifyBearer(authorization: string | undefined, audience: string): null | 'missing' | 'invalid' | 'expired' | 'audience' {
    if (!authorization || !/^Bearer /i.test(authorization)) return 'missing';
    const token = authorization.slice(7).trim();
    const parts = token.split('.');
    if (parts.length !== 3) return 'invalid';
    const expected = b64url(createHmac('sha256', this.key).update(`${parts[0]}.${parts[1]}`).digest());
    if (!safeEqual(expected, parts[2]!)) return 'invalid';
    let payload: { aud?: string; exp?: number };
    try {
      payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    } catch {
      return 'invalid';
    }
    if (typeof payload.exp !== 'number' || payload.exp * 1000 <= this.config.now()) return 'expired';
    if (payload.aud?.replace(/\/$/, '') !== audience) return 'audience';
    return null;
  }
}
