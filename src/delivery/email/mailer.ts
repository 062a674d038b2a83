/**
 * The SMTP transport: one pooled nodemailer transport per running context (the dispatcher's
 * sends share its connections), and one-shot transports for the Test action. Settings come from
 * VIGIA_SMTP_URL (config-smtp.ts); no file or URL access for message parts, no logging (the
 * transcript would carry the AUTH exchange).
 */
import { createTransport, type Transporter } from 'nodemailer';
import type { SmtpConfig } from '../../config-smtp.js';
import type { AppContext } from '../../context.js';
import { provisionCallback } from './oauth.js';

/** Messages one pooled connection carries before it is renewed. */
const MESSAGES_PER_CONNECTION = 1000;

export type Mailer = Transporter;

/** PLAIN/LOGIN with the URL's user and password, or XOAUTH2 with an Entra ID app's token (oauth.ts). */
function authOptions(smtp: SmtpConfig) {
  if (!smtp.auth) return {};
  if (smtp.auth.kind === 'password') return { auth: { user: smtp.auth.user, pass: smtp.auth.pass } };
  return { auth: { type: 'OAuth2' as const, user: smtp.auth.user, provisionCallback: provisionCallback(smtp.auth) } };
}

function options(smtp: SmtpConfig, timeoutMs: number) {
  return {
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    requireTLS: !smtp.secure && smtp.starttls === 'required',
    ...authOptions(smtp),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: Math.max(timeoutMs, 30_000),
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
    debug: false,
  };
}

const pools = new WeakMap<AppContext, Mailer>();

/** The context's pooled transport (created on first use); null when VIGIA_SMTP_URL is unset. */
export function pooledMailer(ctx: AppContext): Mailer | null {
  const smtp = ctx.config.smtp;
  if (!smtp) return null;
  let mailer = pools.get(ctx);
  if (!mailer) {
    mailer = createTransport({
      ...options(smtp, ctx.config.deliveryTimeoutMs),
      pool: true,
      maxConnections: smtp.maxConnections,
      maxMessages: MESSAGES_PER_CONNECTION,
    });
    pools.set(ctx, mailer);
  }
  return mailer;
}

/** A transport of its own (no pool), for one Test action or a baseline measurement; close it after use. */
export function oneShotMailer(smtp: SmtpConfig, timeoutMs: number): Mailer {
  return createTransport(options(smtp, timeoutMs));
}

/** Closes the context's pooled connections (the worker is stopping). */
export function closeMailer(ctx: AppContext): void {
  const mailer = pools.get(ctx);
  if (!mailer) return;
  pools.delete(ctx);
  mailer.close();
}
