/**
 * The Entra ID authority of a confidential client, given to @azure/msal-node up front: the
 * authority URL, the host it may talk to, and the OpenID and instance-discovery metadata, so msal
 * never fetches them (and never reaches Microsoft's hosts when the authority host is replaced by
 * a sovereign cloud's or a simulator's). Used by the tenant connections' tokens and by the SMTP
 * relay's OAuth (XOAUTH2) tokens.
 */
export interface EntraAuthority {
  authority: string;
  knownAuthorities: string[];
  authorityMetadata: string;
  cloudDiscoveryMetadata: string;
}

export function entraAuthority(authorityHost: string, tenantId: string): EntraAuthority {
  const base = authorityHost.replace(/\/$/, '');
  const authority = `${base}/${tenantId}`;
  const host = new URL(base).host;
  const v2 = `${authority}/oauth2/v2.0`;
  return {
    authority,
    knownAuthorities: [host],
    authorityMetadata: JSON.stringify({
      token_endpoint: `${v2}/token`,
      authorization_endpoint: `${v2}/authorize`,
      issuer: `${authority}/v2.0`,
      jwks_uri: `${authority}/discovery/v2.0/keys`,
      end_session_endpoint: `${v2}/logout`,
    }),
    cloudDiscoveryMetadata: JSON.stringify({
      tenant_discovery_endpoint: `${authority}/v2.0/.well-known/openid-configuration`,
      'api-version': '1.1',
      metadata: [{ preferred_network: host, preferred_cache: host, aliases: [host] }],
    }),
  };
}
