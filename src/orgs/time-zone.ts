/**
 * The organization's time zone: the times in chat and e-mail messages are shown in it. An IANA
 * name (`America/Sao_Paulo`, `Europe/Lisbon`, `UTC`); offsets and abbreviations are refused.
 */
import { invalidInput } from '../errors.js';

export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

const IANA_SHAPE = /^(?:UTC|[A-Za-z][A-Za-z_-]*(?:\/[A-Za-z0-9][A-Za-z0-9_+-]*){1,2})$/;

/** True when `name` is an IANA time zone this runtime knows. */
export function isTimeZone(name: string): boolean {
  if (name.length > 64 || !IANA_SHAPE.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The name, or a 400 naming the field and an example. */
export function requireTimeZone(name: string): string {
  if (!isTimeZone(name)) throw invalidInput(`timeZone must be an IANA time zone name such as ${DEFAULT_TIME_ZONE} or UTC`);
  return name;
}
