/**
 * Access tokens for the SMTP relay's XOAUTH2 (VIGIA_SMTP_URL `?auth=oauth2`, config-smtp.ts): an
 * Entra ID app's client-credentials token for the relay's resource (Exchange Online by default),
 * through @azure/msal-node, which caches it and asks again shortly before it expires. nodemailer
 * asks through `provisionCallback` when it opens an authenticated connection, and with `renew`
 * set when the relay refused the token it had.
 *
 * A failure carries only the OAuth error code (`invalid_client`, `unauthorized_client`…) and the
 * HTTP status: never the secret nor the endpoint's full text.
 */
import { ConfidentialClientApplication, LogLevel } from '@azure/msal-node';
import type { SmtpOAuth } from '../../config-smtp.js';
import { entraAuthority } from '../../entra-authority.js';

/** Marks the token failure, so the delivery's error says it was the token, not the relay. */
export class SmtpTokenError extends Error {
  readonly smtpToken = true;
}

/** Seconds before its expiry a token is no longer handed to a new connection. */
const EXPIRY_MARGIN_S = 60;

export type ProvisionCallback = (user: string, renew: boolean, done: (err: Error | null, token?: string, expiresInSeconds?: number) => void) => void;

function tokenErrorOf(err: unknown): SmtpTokenError {
  const e = (err ?? {}) as { errorCode?: string; code?: string; status?: number };
  const code = String(e.errorCode ?? e.code ?? 'unknown').replace(/[^\w.-]/g, '').slice(0, 60) || 'unknown';
  return new SmtpTokenError(`no OAuth token for the SMTP relay: the token endpoint answered ${code} (check VIGIA_SMTP_OAUTH_*)`);
}

/** One msal client per relay configuration (the pooled and the one-shot transports share its cache). */
const clients = new WeakMap<SmtpOAuth, ConfidentialClientApplication>();

function clientOf(o: SmtpOAuth): ConfidentialClientApplication {
  let app = clients.get(o);
  if (!app) {
    app = new ConfidentialClientApplication({
      auth: { clientId: o.clientId, clientSecret: o.clientSecret, ...entraAuthority(o.authorityHost, o.tenantId) },
      // msal's own log lines may carry request details; it stays silent.
      system: { loggerOptions: { loggerCallback: () => {}, piiLoggingEnabled: false, logLevel: LogLevel.Error } },
    });
    clients.set(o, app);
  }
  return app;
}

/** A token for the relay (from msal's cache unless `renew`), and the seconds it may still be handed out. */
export async function smtpToken(o: SmtpOAuth, renew: boolean, now: () => number = Date.now): Promise<{ token: string; expiresInSeconds: number }> {
  const result = await clientOf(o)
    .acquireTokenByClientCredential({ scopes: [o.scope], skipCache: renew })
    .catch((err: unknown) => {
      throw tokenErrorOf(err);
    });
  if (!result?.accessToken) throw tokenErrorOf({ errorCode: 'no_token' });
  const left = result.expiresOn ? Math.floor((result.expiresOn.getTime() - now()) / 1000) - EXPIRY_MARGIN_S : 0;
  return { token: result.accessToken, expiresInSeconds: Math.max(left, 1) };
}

/** nodemailer's `provisionCallback` for the relay configuration. */
export function provisionCallback(o: SmtpOAuth): ProvisionCallback {
  return (_user, renew, done) => {
    smtpToken(o, renew).then(
      (t) => done(null, t.token, t.expiresInSeconds),
      (err: Error) => done(err),
    );
  };
}
