// @engine-neutral: no database is opened here
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Sealer } from '../../src/secrets/sealing.js';
import { resolveMasterKey } from '../../src/secrets/master-key.js';
import { API_KEY_PATTERN, generateApiKey, hashToken, parseApiKey, safeEqual } from '../../src/secrets/tokens.js';

describe('sealing', () => {
  it('round-trips and never contains the plain text', () => {
    const s = new Sealer(randomBytes(32));
    const sealed = s.seal('whsec_supersecret');
    expect(sealed).not.toContain('supersecret');
    expect(s.open(sealed)).toBe('whsec_supersecret');
    expect(s.openJson(s.sealJson({ routingKey: 'abc' }))).toEqual({ routingKey: 'abc' });
  });

  it('refuses tampered text and unknown keys', () => {
    const s = new Sealer(randomBytes(32));
    const sealed = s.seal('value');
    const parts = sealed.split('.');
    parts[4] = Buffer.from('other').toString('base64url');
    expect(() => s.open(parts.join('.'))).toThrow();
    expect(() => new Sealer(randomBytes(32)).open(sealed)).toThrow(/unknown master key/);
  });

  it('opens values sealed under a previous master key after rotation', () => {
    const oldKey = randomBytes(32);
    const sealed = new Sealer(oldKey).seal('old');
    const rotated = new Sealer(randomBytes(32), oldKey);
    expect(rotated.open(sealed)).toBe('old');
    expect(rotated.seal('new').split('.')[1]).not.toBe(sealed.split('.')[1]);
  });

  it('generates the embedded master key once with mode 0600 and refuses to guess with DATABASE_URL', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigia-key-'));
    const a = resolveMasterKey({ dataDir: dir, databaseUrl: undefined, secretKey: undefined });
    const b = resolveMasterKey({ dataDir: dir, databaseUrl: undefined, secretKey: undefined });
    expect(a.equals(b)).toBe(true);
    expect(statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(dir, 'secret.key'), 'utf8').trim()).toBe(a.toString('base64'));
    expect(() => resolveMasterKey({ dataDir: dir, databaseUrl: 'postgres://x', secretKey: undefined })).toThrow(/VIGIA_SECRET_KEY/);
  });
});

describe('API keys and tokens', () => {
  it('have the documented format and parse back to their prefix', () => {
    const { key, prefix, hash } = generateApiKey();
    expect(key).toMatch(API_KEY_PATTERN);
    expect(parseApiKey(key)).toEqual({ prefix });
    expect(hash).toBe(hashToken(key));
    expect(parseApiKey('vgk_short_x')).toBeNull();
  });

  it('compare in constant time without throwing on different lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
