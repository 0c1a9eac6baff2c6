// The verified-token cache from the inside (decodeSyncCached): each hit hands out claims of its own, and an entry
// holds the token and its claims only, never the request's Cookie header the token was cut from.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parseCookie } from 'cookie';
import { describe, expect, it } from 'vitest';
import { decodeSyncCached, encodeSync, type VerifiedTokens } from '../../src/session/jwt.js';

const secret = 'verified-tokens-test-secret-0123456789';
const salt = 'authchart.session-token';

describe('decodeSyncCached', () => {
  it('hands each hit a deep copy: changing one, nested values too, changes nothing the next check reads', () => {
    const token = encodeSync({ token: { sub: 'u1', amr: ['pwd'], prefs: { theme: 'dark', tags: ['a'] } }, secret, salt });
    const cache: VerifiedTokens = { limit: 10, entries: new Map() };
    const first = decodeSyncCached({ token, secret, salt }, cache)!;
    (first.amr as string[]).push('otp');
    (first.prefs as { theme: string }).theme = 'light';
    const hit = decodeSyncCached({ token, secret, salt }, cache)!;
    expect(cache.entries.size).toBe(1);
    (hit.prefs as { tags: string[] }).tags.push('b');
    hit.sub = 'someone else';
    const again = decodeSyncCached({ token, secret, salt }, cache)!;
    expect(again).toMatchObject({ sub: 'u1', amr: ['pwd'], prefs: { theme: 'dark', tags: ['a'] } });
    expect(again).not.toBe(hit);
  });

  it('keeps a "__proto__" claim a plain claim on a hit, as on the first read', () => {
    const token = encodeSync({ token: JSON.parse('{"sub":"u1","__proto__":{"admin":true}}') as object, secret, salt });
    const cache: VerifiedTokens = { limit: 10, entries: new Map() };
    decodeSyncCached({ token, secret, salt }, cache);
    const hit = decodeSyncCached({ token, secret, salt }, cache)! as Record<string, unknown>;
    expect(Object.getPrototypeOf(hit)).toBe(Object.prototype);
    expect(hit.admin).toBeUndefined();
    expect(Object.keys(hit)).toContain('__proto__');
  });

  it('does not keep the Cookie header a cached token came in', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const entries = 500;
    const others = 'x'.repeat(20_000); // other cookies of the site, 20 kB per request
    const cache: VerifiedTokens = { limit: entries, entries: new Map() };
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < entries; i++) {
      const token = encodeSync({ token: { sub: `u${i}` }, secret, salt });
      // As node:http hands a header over: one flat string per request, dropped once the request is answered.
      const header = Buffer.from(`prefs=${others}; ${salt}=${token}`, 'latin1').toString('latin1');
      decodeSyncCached({ token: parseCookie(header)[salt], secret, salt }, cache);
    }
    gc();
    const perEntry = (process.memoryUsage().heapUsed - before) / entries;
    expect(cache.entries.size).toBe(entries);
    // A token of ~400 characters and its claims take well under 2 kB; holding the header would take over 20 kB.
    expect(perEntry).toBeLessThan(4_000);
  });
});
