// Who a request comes from, for throttling: the socket's address, or the nearest proxy's X-Forwarded-For entry when
// the deployment trusts its proxy's headers (the same rule as the host), reduced to the unit one client controls.
// Addresses are recognised by ipVersion below, not node:net's isIP: loading node:net was about 3 ms of a first
// sign-in on Bun (and up to 4 on Node), for one regular expression.

/**
 * The client address of a request, or undefined when none is known. The socket address is what the server saw
 * (`request.ip`, as srvx and h3 give it). With `trustForwarded` (the configuration trusts the host headers) the
 * last X-Forwarded-For entry wins, the one the nearest proxy appended; earlier entries are whatever the client
 * wrote and are never read. An entry that is not an IP address is ignored.
 *
 * @example
 * clientAddress(request, true) // '203.0.113.7' for `X-Forwarded-For: 6.6.6.6, 203.0.113.7`
 */
export function clientAddress(request: Request, trustForwarded: boolean): string | undefined {
  if (trustForwarded) {
    const forwarded = request.headers.get('x-forwarded-for');
    if (forwarded !== null) {
      const last = normalizeAddress(forwarded.slice(forwarded.lastIndexOf(',') + 1));
      if (last) return last;
    }
  }
  let socket: unknown;
  try {
    socket = (request as { ip?: unknown }).ip;
  } catch {
    socket = undefined; // a request wrapper whose socket is gone
  }
  return typeof socket === 'string' ? normalizeAddress(socket) : undefined;
}

/**
 * An IP address in one spelling: brackets and a port removed, IPv4-mapped IPv6 as IPv4, lower case. Undefined when
 * the text is not an IP address.
 *
 * @example
 * normalizeAddress('[::FFFF:192.0.2.1]:443') // '192.0.2.1'
 */
export function normalizeAddress(raw: string): string | undefined {
  let value = raw.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(value)) value = value.slice(0, value.indexOf(':'));
  value = value.replace(/%.*$/, ''); // an IPv6 zone names an interface of this host, not a client
  const kind = ipVersion(value);
  if (kind === 0) return undefined;
  if (kind === 6) {
    const mapped = /^(?:0{0,4}:){0,4}:?(?:0{0,4}:)?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(value);
    if (mapped && ipVersion(mapped[1]) === 4) return mapped[1];
  }
  return value;
}

/** A dotted IPv4 address: four decimal numbers 0-255, no leading zeros (what node:net's isIPv4 accepts). */
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;
/** What may follow `%` in an IPv6 address: the zone (an interface name or number). */
const ZONE = /^[0-9a-z.:-]+$/i;

/**
 * The IP version of an address literal: 4, 6, or 0 when the text is neither (the same answers as node:net's isIP;
 * test/core/client-address.test.ts compares them).
 *
 * @example
 * ipVersion('::ffff:192.0.2.1') // 6
 */
export function ipVersion(text: string): 0 | 4 | 6 {
  if (IPV4.test(text)) return 4;
  return isIPv6(text) ? 6 : 0;
}

/** Eight 16-bit hex groups, a run of zero groups written `::` at most once, the last 32 bits possibly dotted IPv4. */
function isIPv6(text: string): boolean {
  const percent = text.indexOf('%');
  if (percent !== -1 && !ZONE.test(text.slice(percent + 1))) return false;
  let address = percent === -1 ? text : text.slice(0, percent);
  const lastColon = address.lastIndexOf(':');
  if (lastColon === -1) return false;
  // A dotted IPv4 end stands for two groups.
  const end = address.slice(lastColon + 1);
  if (end.includes('.')) {
    if (!IPV4.test(end)) return false;
    address = `${address.slice(0, lastColon + 1)}0:0`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((half) => (half === '' ? [] : half.split(':')));
  if (!groups.every((group) => HEX_GROUP.test(group))) return false;
  return halves.length === 2 ? groups.length <= 7 : groups.length === 8;
}

/** The eight 16-bit groups of an IPv6 address. */
function ipv6Groups(address: string): number[] {
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1].split('.').map(Number);
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : new Array(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((g) => parseInt(g, 16));
}

/**
 * The throttling unit of an address: an IPv4 address itself; an IPv6 address cut to its first `prefix` bits (a /64
 * by default: one home or one customer gets a whole /64, so a single address would be free to change at will).
 *
 * @example
 * addressUnit('2001:db8:1:2:aaaa::1') // '2001:db8:1:2::/64'
 */
export function addressUnit(address: string, prefix = 64): string {
  if (ipVersion(address) !== 6) return address;
  const bits = Math.max(0, Math.min(128, Math.floor(prefix)));
  const groups = ipv6Groups(address);
  const kept = groups.map((g, i) => {
    const start = i * 16;
    if (start + 16 <= bits) return g;
    if (start >= bits) return 0;
    return g & (0xffff << (16 - (bits - start))) & 0xffff;
  });
  return `${kept.map((g) => g.toString(16)).join(':')}/${bits}`;
}
