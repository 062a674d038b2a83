/**
 * Why a call to the platform got no HTTP answer, named so a person knows where to look: the
 * server's TLS certificate (not trusted, issued for another host name, expired), the host name
 * (not found in DNS), the port (connection refused), or time (no answer in time). Read from the
 * error codes Node's TLS and socket layers give; the text names no address and no credential.
 * `blocked` is Vigia's own refusal: the destination-safety rules refuse the address (a private or
 * loopback address, or a name such as localhost, that VIGIA_DESTINATION_ALLOWLIST does not allow).
 */
export type ConnectionCause = 'blocked' | 'tls_untrusted' | 'tls_hostname' | 'tls_expired' | 'dns' | 'refused' | 'timeout' | 'reset' | 'other';

const CODES: Record<string, ConnectionCause> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls_untrusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls_untrusted',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls_untrusted',
  UNABLE_TO_GET_ISSUER_CERT: 'tls_untrusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'tls_untrusted',
  CERT_UNTRUSTED: 'tls_untrusted',
  CERT_SIGNATURE_FAILURE: 'tls_untrusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'tls_hostname',
  CERT_HAS_EXPIRED: 'tls_expired',
  CERT_NOT_YET_VALID: 'tls_expired',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_NONAME: 'dns',
  ECONNREFUSED: 'refused',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  UND_ERR_SOCKET: 'reset',
};

const TEXTS: Record<ConnectionCause, string> = {
  blocked: 'the destination-safety rules refuse the address (a private or loopback address not in VIGIA_DESTINATION_ALLOWLIST)',
  tls_untrusted: "the server's TLS certificate is not signed by a trusted certificate authority",
  tls_hostname: "the server's TLS certificate was issued for another host name",
  tls_expired: "the server's TLS certificate has expired or is not valid yet",
  dns: 'the host name was not found (DNS)',
  refused: 'the server refused the connection (nothing listens on that port)',
  timeout: 'no answer in time',
  reset: 'the server closed the connection',
  other: 'connection failed',
};

/** The cause from an error and the errors it wraps (undici puts the socket's error in `cause`). */
export function connectionCause(err: unknown): { cause: ConnectionCause; code: string | null } {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CODES[code]) return { cause: CODES[code], code };
  }
  return { cause: 'other', code: null };
}

export function connectionText(cause: ConnectionCause, code: string | null): string {
  if (cause === 'other') return TEXTS.other;
  return `connection failed: ${TEXTS[cause]}${code ? ` (${code})` : ''}`;
}
