import { invalidInput } from '../errors.js';

/** RFC 5321's limits: a local part of at most 64 octets, a whole address of at most 254. */
export const MAX_LOCAL_PART = 64;
export const MAX_EMAIL = 254;

// Letters and digits of any script (internationalized addresses) and RFC 5322's "atext" symbols;
// dots between atoms. No quoted local parts: no provider we sign in with issues them.
const LOCAL = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;
/** Control characters, and format characters (U+202E and the other bidi controls, zero-width ones). */
const INVISIBLE = /[\p{Cc}\p{Cf}]/u;

/**
 * The address, trimmed, or a refusal naming `field`: an e-mail address is shown to owners in the
 * member list and the audit log, so markup, direction overrides and invisible characters that
 * would make one address look like another are refused, as are addresses no mail system accepts.
 */
export function validEmail(value: string, field = 'email'): string {
  const e = value.trim();
  const bad = (why: string) => invalidInput(`${field} must be an e-mail address (${why})`);
  if (INVISIBLE.test(e)) throw bad('control and bidirectional-override characters are not allowed');
  if (Buffer.byteLength(e, 'utf8') > MAX_EMAIL) throw bad(`at most ${MAX_EMAIL} characters`);
  const at = e.lastIndexOf('@');
  if (at <= 0 || at === e.length - 1) throw bad('name@domain');
  const local = e.slice(0, at);
  const domain = e.slice(at + 1);
  if (Buffer.byteLength(local, 'utf8') > MAX_LOCAL_PART) throw bad(`the part before @ has at most ${MAX_LOCAL_PART} characters`);
  if (!LOCAL.test(local)) throw bad('the part before @ may hold letters, digits, dots and !#$%&\'*+/=?^_`{|}~-');
  if (!domain.split('.').every((label) => LABEL.test(label))) throw bad('the domain is made of letters, digits and hyphens between dots');
  return e;
}
