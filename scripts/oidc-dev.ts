/**
 * A local OpenID Connect provider for trying the console's company sign-in without Entra ID:
 * `npm run oidc-dev`. It is the certified `oidc-provider` the access tests use, with its
 * development login pages (any user name, any password), serving https on loopback with a
 * certificate kept in VIGIA_DATA_DIR/oidc-dev, signed by the local authority the tour's receiver
 * and the tenant simulator share (VIGIA_DATA_DIR/local-ca/ca.pem: the one file to trust). For development only: it is a dev
 * dependency and accepts every password. docs/access.md walks through the whole flow.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Provider from 'oidc-provider';
import { ensureLocalCert } from '../src/receiver/local-ca.js';

export const OIDC_DEV_CLIENT = { id: 'vigia-dev', secret: 'vigia-dev-client-secret-not-for-production' };
const CALLBACK = '/api/admin/v1/session/oidc/callback';

export interface OidcDevOptions {
  /** Vigia's VIGIA_BASE_URL: the provider sends people back to its callback there. */
  baseUrl: string;
  port?: number;
  host?: string;
  certDir: string;
  /** The local authority's folder (default VIGIA_DATA_DIR/local-ca). */
  caDir?: string;
}

export interface OidcDev {
  issuer: string;
  /** The authority that signed the provider's certificate: what NODE_EXTRA_CA_CERTS names. */
  certFile: string;
  server: Server;
  close(): Promise<void>;
}

/** The e-mail of a login typed at the provider: as typed when it has an @, else `<login>@example.test`. */
export const emailOf = (login: string): string => (login.includes('@') ? login : `${login}@example.test`);

export async function startOidcDev(opts: OidcDevOptions): Promise<OidcDev> {
  const tls = ensureLocalCert(opts.certDir, opts.caDir);
  const host = opts.host ?? '127.0.0.1';
  const server = createServer({ cert: tls.cert, key: tls.key });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 9555, host, resolve);
  });
  // "localhost" matches the certificate and is the name a browser shows.
  const issuer = `https://localhost:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_DEV_CLIENT.id,
        client_secret: OIDC_DEV_CLIENT.secret,
        redirect_uris: [`${opts.baseUrl.replace(/\/$/, '')}${CALLBACK}`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    scopes: ['openid', 'email', 'profile'],
    async findAccount(_ctx, sub) {
      return { accountId: sub, claims: async () => ({ sub, email: emailOf(sub), email_verified: true }) };
    },
  });
  provider.proxy = false;
  server.on('request', provider.callback());
  return {
    issuer,
    certFile: tls.caFile,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function main(): Promise<void> {
  const env = process.env;
  const baseUrl = env.VIGIA_BASE_URL || `http://localhost:${env.PORT || '8080'}`;
  const dev = await startOidcDev({
    baseUrl,
    port: env.OIDC_DEV_PORT ? Number(env.OIDC_DEV_PORT) : undefined,
    certDir: path.resolve(env.VIGIA_DATA_DIR || './data', 'oidc-dev'),
    caDir: path.resolve(env.VIGIA_DATA_DIR || './data', 'local-ca'),
  });
  process.stdout.write(
    [
      `Local OpenID provider (development only; any user name, any password) at ${dev.issuer}`,
      `It sends people back to ${baseUrl}${CALLBACK}.`,
      '',
      'Start Vigia in another shell with:',
      `  NODE_EXTRA_CA_CERTS=${dev.certFile} \\`,
      `  VIGIA_BASE_URL=${baseUrl} \\`,
      `  VIGIA_OIDC_ISSUER=${dev.issuer} \\`,
      `  VIGIA_OIDC_CLIENT_ID=${OIDC_DEV_CLIENT.id} \\`,
      `  VIGIA_OIDC_CLIENT_SECRET=${OIDC_DEV_CLIENT.secret} \\`,
      '  npm start',
      '',
      'Then invite alice@example.test to an organization (console: Access > Members) and sign in as "alice".',
      'Ctrl-C stops the provider.',
      '',
    ].join('\n'),
  );
  const stop = () => void dev.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: Error) => {
    process.stderr.write(`oidc-dev: ${err.message}\n`);
    process.exit(1);
  });
}
