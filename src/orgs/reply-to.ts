/** The organization's Reply-To for alert e-mail: one plain address (no display name, no line break) or null. */
import { EMAIL_ADDRESS } from '../config-smtp.js';
import { invalidInput } from '../errors.js';

export function requireReplyTo(value: string | null): string | null {
  if (value === null) return null;
  if (!EMAIL_ADDRESS.test(value)) throw invalidInput('emailReplyTo must be one e-mail address like oncall@example.com (or null for none)');
  return value;
}
