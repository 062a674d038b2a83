/**
 * Destination safety (docs/delivery.md, "Destination safety"): which URLs may be saved and which
 * addresses a delivery may connect to. Pure functions, used at save time and again on every
 * connection by the guarded HTTP client.
 */
import ipaddr from 'ipaddr.js';

/** Why a URL or address is refused; the text is safe to show to the admin who saved it. */
export class UnsafeDestinationError extends Error {}

/**
 * IPv4 ranges from ipaddr.js's classification that we refuse: everything that is not plain
 * public unicast (loopback, 0/8, 10/8, 172.16/12, 192.168/16, 169.254/16, 100.64/10,
 * multicast, broadcast, reserved/documentation/benchmarking ranges).
 */
function isRefusedIPv4(addr: ipaddr.IPv4): boolean {
  return addr.range() !== 'unicast';
}

/** The IPv4 address embedded in a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) IPv6 address. */
function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = addr.parts;
  const range = addr.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') {
    return new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  }
  if (range === '6to4') return new ipaddr.IPv4([p[1]! >> 8, p[1]! & 0xff, p[2]! >> 8, p[2]! & 0xff]);
  return null;
}

/** True when a delivery must never connect to this IP address (text form, v4 or v6). */
export function isRefusedAddress(ip: string): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(ip.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return true; // not an address we understand: refuse
  }
  if (addr.kind() === 'ipv4') return isRefusedIPv4(addr as ipaddr.IPv4);
  const v6 = addr as ipaddr.IPv6;
  const inner = embeddedIPv4(v6);
  if (inner) return isRefusedIPv4(inner);
  // ::/96 (deprecated IPv4-compatible addresses) is classified "unicast" by ipaddr.js.
  if (v6.parts.slice(0, 6).every((x) => x === 0)) return true;
  return v6.range() !== 'unicast';
}

/** VIGIA_DESTINATION_ALLOWLIST: host names, IPs or CIDRs exempt from the address rules. */
export class Allowlist {
  private readonly hosts = new Set<string>();
  private readonly cidrs: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];

  constructor(entries: readonly string[]) {
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase().replace(/^\[|\]$/g, '');
      if (!entry) continue;
      if (entry.includes('/')) {
        try {
          this.cidrs.push(ipaddr.parseCIDR(entry));
          continue;
        } catch {
          /* fall through: treat as a host name */
        }
      }
      if (ipaddr.isValid(entry)) {
        const a = ipaddr.parse(entry);
        this.cidrs.push([a, a.kind() === 'ipv4' ? 32 : 128]);
      } else {
        this.hosts.add(entry);
      }
    }
  }

  get empty(): boolean {
    return this.hosts.size === 0 && this.cidrs.length === 0;
  }

  hasHost(hostname: string): boolean {
    return this.hosts.has(hostname.toLowerCase().replace(/\.$/, ''));
  }

  hasAddress(ip: string): boolean {
    let a: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      a = ipaddr.process(ip.replace(/^\[|\]$/g, ''));
    } catch {
      return false;
    }
    return this.cidrs.some(([net, bits]) => {
      const n = net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress() ? (net as ipaddr.IPv6).toIPv4Address() : net;
      return n.kind() === a.kind() && a.match(n as never, bits);
    });
  }
}

/** Host names refused by name alone (they only ever point inside). */
export function isRefusedHostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.internal') || h.endsWith('.local') || !h.includes('.');
}

/** The hostname of a URL without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Checks a destination URL as text (save time, and before every send): https only, no embedded
 * credentials, no refused host name, and an IP literal must be a public address. Names are
 * resolved and checked at connection time by the guarded client. Returns the parsed URL.
 */
export function checkDestinationUrl(text: string, allowlist: Allowlist, field = 'url'): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UnsafeDestinationError(`${field} must be an absolute https URL`);
  }
  if (url.protocol !== 'https:') throw new UnsafeDestinationError(`${field} must use https`);
  if (url.username || url.password) throw new UnsafeDestinationError(`${field} must not contain credentials`);
  const host = urlHost(url);
  if (!host) throw new UnsafeDestinationError(`${field} must name a host`);
  if (allowlist.hasHost(host)) return url;
  if (ipaddr.isValid(host)) {
    if (isRefusedAddress(host) && !allowlist.hasAddress(host)) {
      throw new UnsafeDestinationError(`${field} points to a private or reserved address`);
    }
    return url;
  }
  if (isRefusedHostName(host)) throw new UnsafeDestinationError(`${field} must name a public host`);
  return url;
}
