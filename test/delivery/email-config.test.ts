/** VIGIA_SMTP_URL / VIGIA_SMTP_FROM: what the relay settings accept, and that a refusal never echoes the password. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const load = (env: Record<string, string>) => loadConfig({ VIGIA_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'), ...env });

describe('SMTP relay settings', () => {
  it('smtp:// requires STARTTLS on 587, smtps:// is implicit TLS on 465, credentials percent-decoded', () => {
    const a = load({ VIGIA_SMTP_URL: 'smtp://alertas%40contoso.com:p%40ss%2Fw@smtp.office365.com', VIGIA_SMTP_FROM: 'Vigia <alertas@contoso.com>' }).smtp!;
    expect(a).toMatchObject({ host: 'smtp.office365.com', port: 587, secure: false, starttls: 'required', auth: { user: 'alertas@contoso.com', pass: 'p@ss/w' }, fromAddress: 'alertas@contoso.com', maxConnections: 1 });
    const b = load({ VIGIA_SMTP_URL: 'smtps://relay.example.com', VIGIA_SMTP_FROM: 'alertas@example.com', VIGIA_SMTP_MAX_CONNECTIONS: '3' }).smtp!;
    expect(b).toMatchObject({ port: 465, secure: true, auth: null, maxConnections: 3 });
    expect(load({ VIGIA_SMTP_URL: 'smtp://localhost:2525?starttls=opportunistic', VIGIA_SMTP_FROM: 'a@example.com' }).smtp!.starttls).toBe('opportunistic');
    expect(load({}).smtp).toBeUndefined();
  });

  it('refuses what it cannot use, naming the variable and never the password', () => {
    const bad: Record<string, string>[] = [
      { VIGIA_SMTP_URL: 'http://user:hunter2-secret@relay.example.com', VIGIA_SMTP_FROM: 'a@example.com' },
      { VIGIA_SMTP_URL: 'smtp://user:hunter2-secret@relay.example.com' },
      { VIGIA_SMTP_URL: 'smtp://user:hunter2-secret@relay.example.com', VIGIA_SMTP_FROM: 'not an address' },
      { VIGIA_SMTP_URL: 'smtp://user:hunter2-secret@relay.example.com?tls=off', VIGIA_SMTP_FROM: 'a@example.com' },
      { VIGIA_SMTP_FROM: 'a@example.com' },
    ];
    for (const env of bad) {
      let err: unknown;
      try {
        load(env);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(env)).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/VIGIA_SMTP_(URL|FROM)/);
      expect((err as Error).message).not.toContain('hunter2');
    }
  });
});
