// sidOf reads the `sid` claim of an ID token verified earlier: only the second part of the token is decoded, and
// anything unreadable (or a sid that is not a short, non-empty string) is no sid.
import { describe, expect, it } from 'vitest';
import { sidOf } from '../../src/core/id-token-sid.js';

const part = (claims: unknown) => Buffer.from(JSON.stringify(claims)).toString('base64url');

describe('sidOf', () => {
  it('reads the sid of the payload part, whatever the other parts hold', () => {
    expect(sidOf(`${part({ alg: 'RS256' })}.${part({ sid: 'op-session', sub: 'a' })}.sig`)).toBe('op-session');
    expect(sidOf(`${part({ sid: 'header' })}.${part({ sid: 'payload' })}.${part({ sid: 'sig' })}`)).toBe('payload');
    // Two parts: the second is still the payload; an empty header part changes nothing.
    expect(sidOf(`h.${part({ sid: 's2' })}`)).toBe('s2');
    expect(sidOf(`.${part({ sid: 's3' })}.`)).toBe('s3');
  });

  it('is no sid for anything unreadable or out of bounds', () => {
    for (const token of [undefined, null, 42, '', 'no-dots', `${part({ sid: 'only-part' })}`, 'a..c', 'a.!!!.c', `a.${part({ sid: '' })}.c`, `a.${part({ sid: 7 })}.c`, `a.${part({ sid: 'x'.repeat(513) })}.c`]) {
      expect(sidOf(token)).toBeUndefined();
    }
    expect(sidOf(`a.${part({ sid: 'x'.repeat(512) })}.c`)).toBe('x'.repeat(512));
  });
});
