// @engine-neutral: no database is opened here
/** Destination safety rules as a table (docs/delivery.md, "Destination safety"; issue 3 item 6). */
import { describe, expect, it } from 'vitest';
import { Allowlist, checkDestinationUrl, isRefusedAddress } from '../../src/delivery/address-policy.js';

describe('address policy', () => {
  it('refuses private, loopback, link-local, CGNAT, multicast, reserved and their IPv6 forms', () => {
    const refused = [
      '0.0.0.0', '0.1.2.3', '127.0.0.1', '127.255.255.254', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255',
      '192.168.0.1', '169.254.169.254', '100.64.0.1', '100.127.255.255', '224.0.0.1', '239.255.255.255', '255.255.255.255',
      '240.0.0.1', '192.0.2.1', '198.18.0.1', '::', '::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254',
      '64:ff9b::a00:1', '64:ff9b::7f00:1', '2002:0a00:0001::1', '2002:c0a8:0101::', 'fc00::1', 'fd00::1', 'fe80::1', 'ff02::1',
      '::7f00:1', '2001:db8::1', 'not-an-ip',
    ];
    for (const ip of refused) expect(isRefusedAddress(ip), ip).toBe(true);
    const allowed = ['8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:0808:0808::1'];
    for (const ip of allowed) expect(isRefusedAddress(ip), ip).toBe(false);
  });

  it('checks URLs as text: https only, no credentials, no internal names', () => {
    const none = new Allowlist([]);
    for (const u of ['http://a.example.com', 'https://u@a.example.com', 'https://localhost', 'https://x.internal', 'https://x.local', 'https://single', 'https://10.0.0.1', 'https://[fe80::1]']) {
      expect(() => checkDestinationUrl(u, none), u).toThrow();
    }
    expect(checkDestinationUrl('https://a.example.com/p?q=1', none).hostname).toBe('a.example.com');
  });

  it('the allowlist exempts listed hosts, IPs and CIDRs from the address rule, never from https', () => {
    const list = new Allowlist(['receiver.test', '127.0.0.1', '10.1.0.0/16', '::1']);
    expect(list.hasAddress('127.0.0.1')).toBe(true);
    expect(list.hasAddress('::ffff:127.0.0.1')).toBe(true);
    expect(list.hasAddress('10.1.2.3')).toBe(true);
    expect(list.hasAddress('10.2.0.1')).toBe(false);
    expect(list.hasAddress('::1')).toBe(true);
    expect(list.hasHost('RECEIVER.test')).toBe(true);
    expect(checkDestinationUrl('https://127.0.0.1:8443/', list).port).toBe('8443');
    expect(() => checkDestinationUrl('http://127.0.0.1/', list)).toThrow(/https/);
    expect(() => checkDestinationUrl('http://receiver.test/', list)).toThrow(/https/);
  });
});
