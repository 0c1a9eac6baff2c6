// The client address the throttle counts by: socket, or the nearest proxy's X-Forwarded-For entry under trustHost;
// one spelling per address; IPv6 per /64.
import { describe, expect, it } from 'vitest';
import { isIP } from 'node:net';
import { addressUnit, clientAddress, ipVersion, normalizeAddress } from '../../src/core/client-address.js';

const withIp = (ip: string | undefined, headers: Record<string, string> = {}) =>
  Object.assign(new Request('http://localhost/auth/signin', { headers }), { ip });

describe('clientAddress', () => {
  it('is the socket address when forwarded headers are not trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress(withIp('192.0.2.10', { 'x-forwarded-for': '6.6.6.6' }), false)).toBe('192.0.2.10');
  });

  it('is the last X-Forwarded-For entry under trustHost: earlier entries are the client own', () => {
    const request = withIp('10.0.0.1', { 'x-forwarded-for': '6.6.6.6, 7.7.7.7,203.0.113.7' });
    expect(clientAddress(request, true)).toBe('203.0.113.7');
  });

  it('falls back to the socket when the last forwarded entry is not an address', () => {
    expect(clientAddress(withIp('10.0.0.1', { 'x-forwarded-for': '1.2.3.4, unknown' }), true)).toBe('10.0.0.1');
  });

  it('is undefined without a socket address or a trusted header', () => {
    expect(clientAddress(withIp(undefined), true)).toBeUndefined();
    expect(clientAddress(new Request('http://localhost/'), false)).toBeUndefined();
  });
});

describe('normalizeAddress', () => {
  it.each([
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['[::FFFF:192.0.2.1]:443', '192.0.2.1'],
    ['192.0.2.1:8080', '192.0.2.1'],
    [' 2001:DB8::1 ', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
  ])('%s is %s', (raw, expected) => expect(normalizeAddress(raw)).toBe(expected));

  it.each(['', 'unknown', '999.1.1.1', 'example.com', '1.2.3.4.5'])('%j is no address', (raw) => expect(normalizeAddress(raw)).toBeUndefined());
});

describe('addressUnit', () => {
  it('keeps IPv4 as it is', () => expect(addressUnit('198.51.100.4')).toBe('198.51.100.4'));

  it('puts every address of one /64 in one unit, and other /64s apart', () => {
    const a = addressUnit('2001:db8:1:2:aaaa:bbbb:cccc:dddd');
    expect(a).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(addressUnit('2001:db8:1:2::1')).toBe(a);
    expect(addressUnit('2001:0db8:0001:0002:ffff::')).toBe(a);
    expect(addressUnit('2001:db8:1:3::1')).not.toBe(a);
  });

  it('takes another prefix length, down to the bit', () => {
    expect(addressUnit('2001:db8:1:2ff::1', 56)).toBe('2001:db8:1:200:0:0:0:0/56');
    expect(addressUnit('2001:db8::1', 128)).toBe('2001:db8:0:0:0:0:0:1/128');
  });
});

// ipVersion replaces node:net's isIP on the sign-in path (loading node:net cost a first sign-in about 3 ms on Bun): it
// must give isIP's answer for every text, or the throttle would count an address apart or accept a non-address.
describe('ipVersion', () => {
  it.each([
    ['192.0.2.1', 4], ['0.0.0.0', 4], ['255.255.255.255', 4], ['256.1.1.1', 0], ['01.2.3.4', 0], ['1.2.3', 0], ['1.2.3.4.5', 0], ['1.2.3.4 ', 0],
    ['::', 6], ['::1', 6], ['1::', 6], ['2001:db8::1', 6], ['1:2:3:4:5:6:7:8', 6], ['1:2:3:4:5:6:7::', 6], ['::2:3:4:5:6:7:8', 6],
    ['1:2:3:4:5:6:7:8:9', 0], ['1:2:3:4:5:6:7', 0], ['1::2::3', 0], [':::', 0], [':1', 0], ['1:', 0], ['12345::', 0], ['g::1', 0],
    ['::ffff:192.0.2.1', 6], ['1:2:3:4:5:6:1.2.3.4', 6], ['1:2:3:4:5:6:7:1.2.3.4', 0], ['::1.2.3.4:5', 0], ['1.2.3.4::', 0], ['::256.1.1.1', 0],
    ['fe80::1%eth0', 6], ['fe80::1%', 0], ['fe80::1%a b', 0], ['', 0], ['localhost', 0],
  ] as const)('%s is %i, as isIP says', (text, version) => {
    expect(isIP(text)).toBe(version);
    expect(ipVersion(text)).toBe(version);
  });

  it('answers as isIP for 40,000 texts built from address parts', () => {
    const parts = ['0', '1', '9', '10', '99', '255', '256', '01', 'a', 'ff', 'FFFF', 'fffff', 'g', ':', '::', '.', '1.2.3.4', '%eth0', '%', ' ', '-'];
    let seed = 50;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    const differ: string[] = [];
    for (let i = 0; i < 40_000; i++) {
      let text = '';
      const length = 1 + (next() % 12);
      for (let j = 0; j < length; j++) text += parts[next() % parts.length];
      if (ipVersion(text) !== isIP(text)) differ.push(text);
    }
    expect(differ).toEqual([]);
  });
});
