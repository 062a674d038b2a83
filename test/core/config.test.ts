// @engine-neutral: no database is opened here
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseRetrySchedule } from '../../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      baseUrl: 'http://localhost:8080',
      databaseUrl: undefined,
      dataDir: './data',
      retryScheduleMs: [60_000, 300_000, 1_800_000, 7_200_000],
      deliveryTimeoutMs: 10_000,
      cycleSeconds: 60,
      orgCapPerCycle: 1000,
      destinationAllowlist: [],
      logLevel: 'info',
    });
  });

  it('parses retry schedules and refuses nonsense', () => {
    expect(parseRetrySchedule('500ms, 2s,1m')).toEqual([500, 2000, 60_000]);
    expect(() => parseRetrySchedule('5 minutes')).toThrow(ConfigError);
    expect(() => parseRetrySchedule('')).toThrow(ConfigError);
  });

  it('VIGIA_AUTO_DISABLE_AFTER: 24h by default, the retry schedule units, off turns the rule off, nonsense refused', () => {
    expect(loadConfig({}).autoDisableAfterMs).toBe(86_400_000);
    expect(loadConfig({ VIGIA_AUTO_DISABLE_AFTER: '90m' }).autoDisableAfterMs).toBe(5_400_000);
    expect(loadConfig({ VIGIA_AUTO_DISABLE_AFTER: 'off' }).autoDisableAfterMs).toBeNull();
    expect(() => loadConfig({ VIGIA_AUTO_DISABLE_AFTER: 'one day' })).toThrow(/VIGIA_AUTO_DISABLE_AFTER/);
  });

  it('refuses a secret key that is not 32 bytes and a bad port', () => {
    expect(() => loadConfig({ VIGIA_SECRET_KEY: Buffer.alloc(16).toString('base64') })).toThrow(/32 bytes/);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
  });

  it('splits the destination allowlist and trims the base URL', () => {
    const c = loadConfig({ VIGIA_DESTINATION_ALLOWLIST: '127.0.0.1, receiver.test ,10.0.0.0/8', VIGIA_BASE_URL: 'https://v.example/' });
    expect(c.destinationAllowlist).toEqual(['127.0.0.1', 'receiver.test', '10.0.0.0/8']);
    expect(c.baseUrl).toBe('https://v.example');
  });

  it('VIGIA_BASE_URL follows HOST and PORT when unset (localhost for loopback and all-interfaces binds)', () => {
    expect(loadConfig({ PORT: '18080' }).baseUrl).toBe('http://localhost:18080');
    expect(loadConfig({ PORT: '9000', HOST: '0.0.0.0' }).baseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ PORT: '9000', HOST: '::1' }).baseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ PORT: '9000', HOST: '10.1.2.3' }).baseUrl).toBe('http://10.1.2.3:9000');
    expect(loadConfig({ PORT: '9000', HOST: 'fd00::5' }).baseUrl).toBe('http://[fd00::5]:9000');
    expect(loadConfig({ PORT: '9000', VIGIA_BASE_URL: 'https://alerts.example.com' }).baseUrl).toBe('https://alerts.example.com');
  });

  it('takes a read replica only beside a primary', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://replica/db' })).toThrow(/needs DATABASE_URL/);
    const c = loadConfig({ DATABASE_URL: 'postgres://primary/db', DATABASE_READ_URL: 'postgres://replica/db', VIGIA_READ_MAX_LAG_SECONDS: '3' });
    expect(c).toMatchObject({ databaseReadUrl: 'postgres://replica/db', readMaxLagSeconds: 3 });
    expect(loadConfig({}).databaseReadUrl).toBeUndefined();
    expect(loadConfig({}).readMaxLagSeconds).toBe(10);
  });
});
