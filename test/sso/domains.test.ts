// Domain names as claims store them, and the domain of an address: one spelling per domain (lower case, ASCII, no
// trailing dot), and nothing that is not a registrable-looking name (IP addresses, URLs, single labels).
import { describe, expect, it } from 'vitest';
import { domainOfAddress, normalizeDomain, verificationHost } from '../../src/sso/domains.js';

describe('normalizeDomain', () => {
  it.each([
    ['Acme.Example', 'acme.example'],
    ['acme.example.', 'acme.example'],
    ['  sub.acme.example ', 'sub.acme.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
  ])('%s -> %s', (input, out) => expect(normalizeDomain(input)).toBe(out));

  it.each(['', 'localhost', '127.0.0.1', '[::1]', 'http://acme.example', 'acme.example/path', 'acme.example:443', 'a b.example', 'user@acme.example', '-bad.example', 'x'.repeat(254), 42, null])(
    'refuses %s',
    (input) => expect(normalizeDomain(input)).toBeNull(),
  );
});

describe('domainOfAddress', () => {
  it('reads the part after the last @, normalised', () => {
    expect(domainOfAddress('Alice@ACME.example')).toBe('acme.example');
    expect(domainOfAddress('"a@b"@acme.example')).toBe('acme.example');
    expect(domainOfAddress('alice@bücher.example')).toBe('xn--bcher-kva.example');
  });
  it('has none for what is no address', () => {
    for (const v of ['alice', '@acme.example', 'alice@', undefined, 7]) expect(domainOfAddress(v)).toBeNull();
  });
});

it('puts the TXT record under a name of its own', () => {
  expect(verificationHost('acme.example')).toBe('_authchart.acme.example');
});
