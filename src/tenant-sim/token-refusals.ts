/**
 * How the token endpoint refuses the app, as Entra ID answers each case (status, OAuth error,
 * AADSTS code). `invalid_client` and `unauthorized` are the older names of `expired_secret` and
 * `unknown_application`. `unavailable` is an outage: 503 `temporarily_unavailable` with Retry-After.
 */
export const TOKEN_REFUSALS = {
  invalid_client: { status: 401, error: 'invalid_client', code: 7000222, text: 'The provided client secret keys for app are expired.' },
  expired_secret: { status: 401, error: 'invalid_client', code: 7000222, text: 'The provided client secret keys for app are expired.' },
  invalid_secret: { status: 401, error: 'invalid_client', code: 7000215, text: 'Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.' },
  certificate: { status: 401, error: 'invalid_client', code: 700027, text: 'The certificate with identifier used to sign the client assertion is not registered on application.' },
  disabled: { status: 400, error: 'unauthorized_client', code: 7000112, text: 'Application is disabled.' },
  unauthorized: { status: 400, error: 'unauthorized_client', code: 700016, text: 'Application with identifier was not found in the directory.' },
  unknown_application: { status: 400, error: 'unauthorized_client', code: 700016, text: 'Application with identifier was not found in the directory.' },
  tenant_not_found: { status: 400, error: 'invalid_request', code: 90002, text: 'Tenant not found. Check to make sure you have the correct tenant ID.' },
  unavailable: { status: 503, error: 'temporarily_unavailable', code: 90033, text: 'A transient error has occurred. Please try again.' },
} as const;

export type TokenRefusalKind = keyof typeof TOKEN_REFUSALS;
