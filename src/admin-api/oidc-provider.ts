import * as oidc from 'openid-client';
import type { AppContext } from '../context.js';
import { ApiError, notFound } from '../http/errors.js';

/**
 * The OpenID provider's configuration (discovery through openid-client), or 503 when it cannot be
 * reached; 404 when OpenID Connect sign-in is not configured.
 *
 * openid-client checks ID-token times (exp, iat) against the system clock; Vigia's "now" is the
 * injected clock. Their difference, in whole seconds, is openid-client's clock skew, so an ID
 * token is judged by the same time as sessions and sign-in states. With the system clock the
 * skew is 0 and the provider is discovered once; a different skew means a fresh discovery.
 */
export function providerConfiguration(ctx: AppContext): () => Promise<oidc.Configuration> {
  const settings = ctx.config.oidc;
  let discovered: { skew: number; config: Promise<oidc.Configuration> } | null = null;
  const configuration = (): Promise<oidc.Configuration> => {
    if (!settings) throw notFound('OpenID Connect sign-in');
    const skew = Math.round((ctx.clock.now().getTime() - Date.now()) / 1000);
    if (discovered?.skew === skew) return discovered.config;
    const attempt: { skew: number; config: Promise<oidc.Configuration> } = {
      skew,
      config: oidc
        .discovery(new URL(settings.issuer), settings.clientId, { client_secret: settings.clientSecret, [oidc.clockSkew]: skew })
        .then((config) => {
          // Verify the ID token's signature against the provider's keys even though it came over
          // TLS from the token endpoint: a forged or altered token is refused, not trusted.
          oidc.enableNonRepudiationChecks(config);
          return config;
        })
        .catch((err: unknown) => {
          if (discovered === attempt) discovered = null; // the provider may be back at the next try
          throw err;
        }),
    };
    discovered = attempt;
    return attempt.config;
  };
  return async () => {
    try {
      return await configuration();
    } catch (err) {
      if (err instanceof ApiError) throw err;
      ctx.log.warn({ err: (err as Error).message }, 'OpenID provider unreachable');
      throw new ApiError(503, 'unavailable', 'the identity provider cannot be reached; sign in with the instance admin token');
    }
  };
}
