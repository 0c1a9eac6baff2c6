// Cookie chunking, with the Set-Cookie lines measured as h3's setCookie actually writes them.
import { H3, setCookie } from 'h3';
import { describe, expect, it } from 'vitest';
import { defaultCookies, type CookieOptions, type CookieToSet } from '../../src/core/cookies.js';
import { CHUNK_SIZE, chunkCookie, clearChunked, MAX_COOKIE_BYTES, readChunked } from '../../src/session/chunks.js';

const session = defaultCookies(true).sessionToken;
const name = session.name;
const options: CookieOptions = { ...session.options, expires: new Date(Date.UTC(2026, 1, 1)) };

async function setCookieLines(cookies: CookieToSet[]): Promise<string[]> {
  const app = new H3().get('/', (event) => {
    for (const c of cookies) setCookie(event, c.name, c.value, c.options);
    return 'ok';
  });
  const res = await app.fetch(new Request('http://localhost/'));
  return res.headers.getSetCookie();
}

// A JWE-like value (base64url and dots) of the given length.
const jweLike = (length: number) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
  return Array.from({ length }, (_, i) => alphabet[(i * 7 + (i >> 6)) % alphabet.length]).join('');
};

const toJar = (cookies: CookieToSet[]) => Object.fromEntries(cookies.filter((c) => c.options.maxAge !== 0).map((c) => [c.name, c.value]));

describe('chunkCookie', () => {
  it('writes one plain cookie when the value fits', () => {
    expect(chunkCookie(name, 'small', options, {})).toEqual([{ name, value: 'small', options }]);
  });

  it('splits a 6 KB value into two chunks, each Set-Cookie line within 4096 bytes', async () => {
    const value = jweLike(6 * 1024);
    const cookies = chunkCookie(name, value, options, {});
    expect(cookies.map((c) => c.name)).toEqual([`${name}.0`, `${name}.1`]);
    expect(cookies.map((c) => c.value).join('')).toBe(value);
    const lines = await setCookieLines(cookies);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_COOKIE_BYTES);
    // The first chunk uses the whole budget: the split is measured, not estimated.
    expect(Buffer.byteLength(lines[0])).toBe(MAX_COOKIE_BYTES);
  });

  it('uses exactly the room left by the name and attributes, as h3 serializes them', async () => {
    const [line] = await setCookieLines([{ name, value: '', options }]);
    const room = MAX_COOKIE_BYTES - Buffer.byteLength(line);
    expect(chunkCookie(name, jweLike(room), options, {})).toHaveLength(1);
    expect(chunkCookie(name, jweLike(room + 1), options, {}).map((c) => c.name)).toEqual([`${name}.0`, `${name}.1`]);
  });

  it('counts the Path=/ that h3 adds when the options have no path', async () => {
    const { path: _path, ...pathless } = options;
    const lines = await setCookieLines(chunkCookie(name, jweLike(6 * 1024), pathless, {}));
    expect(lines[0]).toContain('; Path=/');
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_COOKIE_BYTES);
  });

  it('stays within the limit with a domain, Max-Age and Expires, and with many chunks', async () => {
    const heavy: CookieOptions = { ...options, domain: 'auth.example.com', maxAge: 34_560_000 };
    const value = jweLike(45_000);
    const cookies = chunkCookie(name, value, heavy, {});
    expect(cookies.length).toBeGreaterThan(10);
    expect(cookies.map((c) => c.value).join('')).toBe(value);
    for (const line of await setCookieLines(cookies)) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_COOKIE_BYTES);
  });

  it('counts percent-encoded bytes and never splits a character', async () => {
    const value = 'é😀a'.repeat(900);
    const cookies = chunkCookie('authchart.data', value, options, {});
    expect(cookies.length).toBeGreaterThan(1);
    expect(cookies.map((c) => c.value).join('')).toBe(value);
    for (const line of await setCookieLines(cookies)) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_COOKIE_BYTES);
  });

  it('clears the stale chunks when the value shrinks from three chunks to one cookie', () => {
    const before = chunkCookie(name, jweLike(10_000), options, {});
    expect(before).toHaveLength(3);
    const after = chunkCookie(name, 'short', options, toJar(before));
    expect(after[0]).toEqual({ name, value: 'short', options });
    const cleared = after.slice(1);
    expect(cleared.map((c) => c.name).sort()).toEqual([`${name}.0`, `${name}.1`, `${name}.2`]);
    for (const c of cleared) {
      expect(c.value).toBe('');
      expect(c.options.maxAge).toBe(0);
      expect(c.options.expires).toBeUndefined();
      expect(c.options.path).toBe('/');
      expect(c.options.secure).toBe(true);
    }
  });

  it('clears only the chunks past the new end when three chunks become two', () => {
    const jar = toJar(chunkCookie(name, jweLike(10_000), options, {}));
    const after = chunkCookie(name, jweLike(6_000), options, jar);
    expect(after.filter((c) => c.options.maxAge !== 0).map((c) => c.name)).toEqual([`${name}.0`, `${name}.1`]);
    expect(after.filter((c) => c.options.maxAge === 0).map((c) => c.name)).toEqual([`${name}.2`]);
  });

  it('clears the plain cookie when the value grows into chunks', () => {
    const after = chunkCookie(name, jweLike(6_000), options, { [name]: 'old' });
    expect(after.filter((c) => c.options.maxAge === 0).map((c) => c.name)).toEqual([name]);
  });

  it('leaves cookies that only look related alone', () => {
    const jar = { [`${name}.abc`]: 'x', [`${name}.01`]: 'x', [`${name}.-1`]: 'x', [`${name}.1.2`]: 'x', [`${name}x.0`]: 'x', [`${name}.0`]: 'stale' };
    const after = chunkCookie(name, 'v', options, jar);
    expect(after.map((c) => c.name)).toEqual([name, `${name}.0`]);
  });

  it('refuses a cookie whose name and attributes leave no room for a value', () => {
    expect(() => chunkCookie('n'.repeat(4090), 'value', options, {})).toThrow(RangeError);
  });
});

describe('CHUNK_SIZE', () => {
  it('is the room left in a default session chunk with its longest attributes', async () => {
    const [line] = await setCookieLines([{ name: `${name}.99`, value: jweLike(CHUNK_SIZE), options: { ...options, maxAge: 34_560_000 } }]);
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_COOKIE_BYTES);
    expect(CHUNK_SIZE).toBeGreaterThan(3800);
    expect(CHUNK_SIZE).toBeLessThan(4000);
  });
});

describe('readChunked', () => {
  it('reads the plain cookie', () => {
    expect(readChunked(name, { [name]: 'plain', other: 'x' })).toBe('plain');
  });

  it('round-trips what chunkCookie wrote', () => {
    const value = jweLike(20_000);
    expect(readChunked(name, toJar(chunkCookie(name, value, options, {})))).toBe(value);
  });

  it('joins chunks in numeric order: .10 comes after .9', () => {
    const jar: Record<string, string> = {};
    for (const i of [10, 2, 0, 9, 1, 5, 3, 8, 4, 7, 6]) jar[`${name}.${i}`] = `<${i}>`;
    expect(readChunked(name, jar)).toBe('<0><1><2><3><4><5><6><7><8><9><10>');
  });

  it('returns undefined when the numbering has a gap or does not start at 0', () => {
    expect(readChunked(name, { [`${name}.0`]: 'a', [`${name}.2`]: 'c' })).toBeUndefined();
    expect(readChunked(name, { [`${name}.1`]: 'b', [`${name}.2`]: 'c' })).toBeUndefined();
    expect(readChunked(name, { [`${name}.0`]: 'a', [`${name}.999999`]: 'z' })).toBeUndefined();
  });

  it('ignores garbage chunk names', () => {
    const jar = { [`${name}.0`]: 'a', [`${name}.1`]: 'b', [`${name}.x`]: '!', [`${name}.01`]: '!', [`${name}.1e1`]: '!', [`${name}.`]: '!', [`${name}.1234567`]: '!' };
    expect(readChunked(name, jar)).toBe('ab');
  });

  it('returns undefined when nothing is there', () => {
    expect(readChunked(name, {})).toBeUndefined();
    expect(readChunked(name, { [`${name}x`]: 'v', [`x${name}.0`]: 'v' })).toBeUndefined();
  });
});

describe('clearChunked', () => {
  it('clears the plain cookie and every chunk present, and nothing else', () => {
    const jar = { [name]: 'p', [`${name}.0`]: 'a', [`${name}.1`]: 'b', [`${name}.junk`]: 'j', unrelated: 'u' };
    const cleared = clearChunked(name, options, jar);
    expect(cleared.map((c) => c.name).sort()).toEqual([name, `${name}.0`, `${name}.1`]);
    expect(cleared.every((c) => c.value === '' && c.options.maxAge === 0 && c.options.path === '/')).toBe(true);
  });

  it('writes nothing when there is nothing to clear', () => {
    expect(clearChunked(name, options, { unrelated: 'u' })).toEqual([]);
  });
});
