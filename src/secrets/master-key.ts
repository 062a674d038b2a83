import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';

/**
 * The master key: VIGIA_SECRET_KEY wins; unset in embedded mode → generated once into the data dir
 * (mode 0600); unset with DATABASE_URL → refuse to start (several instances must share one key).
 */
export function resolveMasterKey(config: Pick<Config, 'secretKey' | 'databaseUrl' | 'dataDir'>): Buffer {
  if (config.secretKey) return Buffer.from(config.secretKey, 'base64');
  if (config.databaseUrl) {
    throw new ConfigError('VIGIA_SECRET_KEY is required with DATABASE_URL (base64 of 32 bytes)');
  }
  const file = path.resolve(config.dataDir, 'secret.key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new ConfigError(`${file} does not hold base64 of 32 bytes`);
    return key;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
