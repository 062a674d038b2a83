import { pino, type Logger } from 'pino';

/**
 * Paths pino replaces with "[redacted]". Secrets must never reach a log line (SPEC 4.2 rule 3);
 * these cover request headers that carry keys and any object field named like a credential.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.password',
  '*.token',
  '*.apiKey',
  '*.routingKey',
  '*.personalAccessToken',
  '*.signingSecret',
  '*.secret',
  '*.key',
  '*.credentials',
  'password',
  'token',
  'apiKey',
  'routingKey',
  'personalAccessToken',
  'signingSecret',
  'secret',
  'credentials',
];

export function createLogger(level = 'info', destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'vigia' } },
    destination as never,
  );
}

export type { Logger };
