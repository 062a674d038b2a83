import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text of the given length, without modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * Opaque, roughly time-ordered identifier: prefix, 10 base36 chars of milliseconds, 12 random.
 * Time order keeps B-tree inserts local; the random tail makes it unique.
 */
export function newId(prefix: string, at: Date = new Date()): string {
  return `${prefix}_${at.getTime().toString(36).padStart(10, '0')}${randomBase62(12)}`;
}
