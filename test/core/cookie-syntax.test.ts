// The Cookie and Set-Cookie syntax of core/cookie-syntax.ts. It replaced the `cookie` package on the request path, so
// the lines it writes are compared with that package's for every attribute authchart sets: a browser, and every test
// that reads a Set-Cookie line, sees the same text as before.
import { parseCookie, stringifySetCookie } from 'cookie';
import { describe, expect, it } from 'vitest';
import { formatSetCookie, parseCookieHeader, type SetCookie } from '../../src/core/cookie-syntax.js';
import { defaultCookies } from '../../src/core/cookies.js';

describe('formatSetCookie', () => {
  const cookies: SetCookie[] = [
    { name: 'authchart.session-token', value: 'eyJhbGciOiJkaXIifQ..abc.def-_', path: '/', httpOnly: true, sameSite: 'lax' },
    { name: '__Host-authchart.csrf-token', value: 'a1|b2', path: '/', secure: true, httpOnly: true, sameSite: 'lax' },
    { name: 'authchart.callback-url', value: 'http://localhost:3000/a b?c=d&e=é', path: '/', sameSite: 'strict', secure: false },
    { name: 'gone', value: '', maxAge: 0, expires: new Date(0), path: '/' },
    { name: 'x', value: 'y', maxAge: 2 ** 31 - 1, domain: '.example.com', path: '/app', expires: new Date(Date.UTC(2030, 0, 2, 3, 4, 5)), httpOnly: true, secure: true, sameSite: 'none' },
    ...Object.values(defaultCookies(true)).map(({ name, options }) => ({ name, value: 'v', ...options })),
  ];

  it('writes the line the cookie package writes, attribute for attribute', () => {
    for (const c of cookies) expect(formatSetCookie(c), c.name).toBe(stringifySetCookie(c));
  });

  it('refuses what would break the line or the header: a name that is not a token, a bad Domain, Path, Max-Age or date', () => {
    expect(() => formatSetCookie({ name: 'a b', value: 'v' })).toThrow(TypeError);
    expect(() => formatSetCookie({ name: 'a;b', value: 'v' })).toThrow(TypeError);
    expect(() => formatSetCookie({ name: '', value: 'v' })).toThrow(TypeError);
    expect(() => formatSetCookie({ name: 'a', value: 'v', path: '/; Domain=evil.test' })).toThrow(TypeError);
    expect(() => formatSetCookie({ name: 'a', value: 'v', path: '/\r\nSet-Cookie: b=c' })).toThrow(TypeError);
    expect(() => formatSetCookie({ name: 'a', value: 'v', domain: 'evil.test; Path=/' })).toThrow(TypeError);
    expect(() => formatSetCookie({ name: 'a', value: 'v', maxAge: 1.5 })).toThrow(TypeError);
    expect(() => formatSetCookie({ name: 'a', value: 'v', expires: new Date(Number.NaN) })).toThrow(TypeError);
    expect(() => formatSetCookie({ name: 'a', value: 'v', sameSite: 'sometimes' as never })).toThrow(TypeError);
  });

  it('encodes a value so that it cannot end the pair or the line', () => {
    expect(formatSetCookie({ name: 'a', value: 'x; Path=/\r\n' })).toBe('a=x%3B%20Path%3D%2F%0D%0A');
  });

  it('sends a value exactly as encodeURIComponent encodes it, whether or not it needed encoding', () => {
    // Every ASCII character alone and between safe ones, plus non-ASCII and a whole JWE-like value.
    const values = [...Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)), 'é', '\u{1F600}', 'eyJhbGciOiJkaXIifQ..a-b_c.d~e'];
    for (const value of values.flatMap((v) => [v, `ab${v}cd`])) {
      expect(formatSetCookie({ name: 'a', value })).toBe(`a=${encodeURIComponent(value)}`);
    }
    expect(formatSetCookie({ name: 'a', value: undefined as never, path: '/' })).toBe('a=; Path=/');
  });
});

describe('parseCookieHeader', () => {
  const headers = [
    'a=1; b=2',
    ' a = 1 ;\tb=x%20y ',
    'a=1; a=2',
    'a; b=2',
    'bad=%E0%A4%A; good=%C3%A9',
    'authchart.session-token.0=abc; authchart.session-token.1=def',
    'e=a=b=c',
    '',
  ];

  it('reads what the cookie package reads', () => {
    for (const header of headers) expect({ ...parseCookieHeader(header) }, header).toEqual({ ...parseCookie(header) });
  });

  it('keeps the first of a repeated name, and holds names like __proto__ as data', () => {
    const cookies = parseCookieHeader('__proto__=x; constructor=y; a=1; a=2');
    expect(cookies.a).toBe('1');
    expect(cookies.constructor).toBe('y');
    expect('toString' in cookies).toBe(false);
    expect(Object.keys(cookies).sort()).toEqual(['__proto__', 'a', 'constructor']);
    expect(parseCookieHeader('x=1').toString).toBeUndefined();
  });

  it('skips a piece with an empty name (the cookie package keeps it under "")', () => {
    expect({ ...parseCookieHeader('=v; ; a=1') }).toEqual({ a: '1' });
  });
});
