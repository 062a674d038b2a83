/**
 * What an SMTP failure means for one recipient's message (RFC 5321: 4xx temporary, 5xx permanent):
 *   refused — the relay refused this recipient for good (5xx to RCPT TO): mark the recipient;
 *   message — the relay refused the message itself for good (5xx to MAIL FROM or DATA, e.g. 552 too large);
 *   retry   — anything else: the relay is down or unreachable, TLS or authentication failed, a 4xx answer.
 * Texts carry the relay's reply (never a credential: nodemailer's replies hold no AUTH data) cut short.
 */
export type SmtpVerdict = { kind: 'refused' | 'message' | 'retry'; error: string };

interface SmtpError {
  /** Set by oauth.ts: the relay was never asked, the OAuth token could not be had. */
  smtpToken?: boolean;
  message?: string;
  code?: string;
  responseCode?: number;
  command?: string;
  response?: string;
}

const CONNECTION_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS', 'EPROTOCOL', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEOUT']);

/** The relay's reply on one line, at most 200 characters. */
export function replyText(s: string | undefined): string {
  const line = (s ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

export function classifySmtpError(err: unknown): SmtpVerdict {
  const e = (err ?? {}) as SmtpError;
  const code = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const reply = replyText(e.response);
  if (code !== undefined && code >= 500 && e.command === 'RCPT TO') return { kind: 'refused', error: `SMTP ${reply || code}` };
  if (code !== undefined && code >= 500 && (e.command === 'DATA' || e.command === 'MAIL FROM')) {
    return { kind: 'message', error: `SMTP relay refused the message: ${reply || code}` };
  }
  if (e.smtpToken === true) return { kind: 'retry', error: replyText(e.message) };
  if (e.code === 'EAUTH' || e.code === 'ENOAUTH') return { kind: 'retry', error: `SMTP relay refused the authentication${reply ? `: ${reply}` : ''} (check VIGIA_SMTP_URL)` };
  if (e.code && CONNECTION_CODES.has(e.code)) return { kind: 'retry', error: `SMTP relay unreachable (${e.code})` };
  if (code !== undefined) return { kind: 'retry', error: `SMTP ${reply || code}` };
  return { kind: 'retry', error: `SMTP send failed${e.code ? ` (${e.code})` : ''}` };
}
