import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../ids.js';

/** API keys and the admin token are high-entropy, so a plain SHA-256 is a sufficient hash. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests (or any equal-length strings). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab); // spend the same time either way
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export const API_KEY_PATTERN = /^vgk_([0-9A-Za-z]{8})_([0-9A-Za-z]{32,})$/;

/** API key format: vgk_ + 8-char lookup prefix + _ + 32+ random base62 chars. */
export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const prefix = randomBase62(8);
  const key = `vgk_${prefix}_${randomBase62(40)}`;
  return { key, prefix, hash: hashToken(key) };
}

export function parseApiKey(key: string): { prefix: string } | null {
  const m = API_KEY_PATTERN.exec(key);
  return m ? { prefix: m[1]! } : null;
}

export function generateAdminToken(): string {
  return `vat_${randomBase62(43)}`;
}

export function generateSigningSecret(): string {
  return `whsec_${randomBase62(40)}`;
}
