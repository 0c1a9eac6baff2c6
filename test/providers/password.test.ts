// The Password provider's parts below the flow: NIST's rules with a typed refusal per rule, argon2id's parameters and
// when a hash needs replacing, imported formats, the dummy hash, and the k-anonymity breached check against a local
// fake range server on 127.0.0.1 (never the real service).
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidPassword, InvalidRequest } from '../../src/core/errors.js';
import { argon2id, breachedRange, hashNewPassword, MAX_PASSWORD_LENGTH, OWASP_ARGON2ID, Password } from '../../src/providers/password/index.js';
import { dummyHash } from '../../src/providers/password/hash.js';
import { verifyImportedHash } from '../../src/providers/password/imported.js';
import { passwordForHashing } from '../../src/providers/password/rules.js';

const cheap = argon2id({ memoryCost: 1024, timeCost: 1 });
const problemOf = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidPassword);
    expect(err).toBeInstanceOf(InvalidRequest);
    return (err as InvalidPassword).problem;
  }
  return undefined;
};

describe('the rules (NIST SP 800-63B)', () => {
  it('takes 8 to 128 characters of any text, counted in code points after NFKC, with no composition rules', () => {
    expect(passwordForHashing('abcdefgh', { minLength: 8 })).toBe('abcdefgh');
    expect(passwordForHashing('🔑'.repeat(MAX_PASSWORD_LENGTH))).toHaveLength(2 * MAX_PASSWORD_LENGTH);
    expect(passwordForHashing('ｐａｓｓ ｗｏｒｄ ｆｕｌｌ')).toBe('pass word full');
    expect(problemOf(() => passwordForHashing('abcdefg', { minLength: 8 }))).toBe('too_short');
    expect(problemOf(() => passwordForHashing('a'.repeat(MAX_PASSWORD_LENGTH + 1)))).toBe('too_long');
    expect(problemOf(() => passwordForHashing('🔑'.repeat(MAX_PASSWORD_LENGTH + 1)))).toBe('too_long');
    // Sign-in applies no minimum: a password set under older rules still works.
    expect(passwordForHashing('short')).toBe('short');
  });

  it('refuses NUL, lone surrogates and anything not one string, each named', () => {
    expect(problemOf(() => passwordForHashing('abc\0defgh'))).toBe('nul');
    expect(problemOf(() => passwordForHashing('abcdefgh\uD83D'))).toBe('invalid_utf16');
    expect(problemOf(() => passwordForHashing('\uDD11abcdefgh'))).toBe('invalid_utf16');
    expect(problemOf(() => passwordForHashing(['abcdefgh']))).toBe('not_a_string');
    expect(problemOf(() => passwordForHashing(undefined))).toBe('not_a_string');
    expect(problemOf(() => passwordForHashing('x'.repeat(200 * 1024)))).toBe('too_long');
  });

  it('hashNewPassword applies the minimum, refuses a minimum under NIST\'s, and hashes nothing it refuses', async () => {
    let hashed = 0;
    const counting = { ...cheap, hash: async (p: string) => (hashed++, cheap.hash(p)) };
    await expect(hashNewPassword('seven77', { hasher: counting })).rejects.toMatchObject({ problem: 'too_short' });
    await expect(hashNewPassword('twelve chars', { hasher: counting, minLength: 16 })).rejects.toMatchObject({ problem: 'too_short' });
    await expect(hashNewPassword('whatever1', { minLength: 6 })).rejects.toThrow(TypeError);
    expect(hashed).toBe(0);
    expect(await hashNewPassword('eight888', { hasher: counting })).toMatch(/^\$argon2id\$/);
    expect(hashed).toBe(1);
  });
});

describe('argon2id', () => {
  it('defaults to OWASP\'s parameters and asks for a rehash of any other', async () => {
    expect(OWASP_ARGON2ID).toEqual({ memoryCost: 19_456, timeCost: 2, parallelism: 1 });
    const owasp = argon2id();
    const hash = await owasp.hash('correct horse');
    expect(hash.startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true);
    expect(await owasp.verify(hash, 'correct horse')).toBe(true);
    expect(await owasp.verify(hash, 'correct horsE')).toBe(false);
    expect(owasp.needsRehash(hash)).toBe(false);
    expect(cheap.needsRehash(hash)).toBe(true);
    expect(owasp.needsRehash(await cheap.hash('x'))).toBe(true);
    expect(() => argon2id({ timeCost: 0 })).toThrow(TypeError);
  });

  it('verifies argon2i and argon2d hashes too, and always wants them replaced', async () => {
    const { hash } = await import('@node-rs/argon2');
    const argon2i = await hash('pw', { algorithm: 1, memoryCost: 1024, timeCost: 1 });
    expect(cheap.recognizes(argon2i)).toBe(true);
    expect(await cheap.verify(argon2i, 'pw')).toBe(true);
    expect(cheap.needsRehash(argon2i)).toBe(true);
    expect(cheap.recognizes('$2b$10$abc')).toBe(false);
  });

  it('makes its dummy hash once, with its own parameters, matching nothing', async () => {
    const first = dummyHash(cheap);
    expect(dummyHash(cheap)).toBe(first);
    expect((await first).startsWith('$argon2id$v=19$m=1024,t=1,p=1$')).toBe(true);
    expect(await cheap.verify(await first, '')).toBe(false);
  });
});

describe('imported hashes', () => {
  it('bcrypt ($2a$, $2b$, $2y$) is built in; the password is checked as typed', async () => {
    const b = await bcrypt.hash('Ｐassword', 4);
    expect(await verifyImportedHash(b, 'Ｐassword')).toBe(true);
    expect(await verifyImportedHash(b, 'Password')).toBe(false);
    expect(await verifyImportedHash(b.replace('$2b$', '$2y$'), 'Ｐassword')).toBe(true);
  });

  it('anything else goes to verifyImported, and nobody knowing it is undefined', async () => {
    expect(await verifyImportedHash('md5$x', 'pw')).toBeUndefined();
    expect(await verifyImportedHash('md5$x', 'pw', () => undefined)).toBeUndefined();
    expect(await verifyImportedHash('md5$x', 'pw', (h, p) => h === 'md5$x' && p === 'pw')).toBe(true);
    expect(await verifyImportedHash('md5$x', 'no', async (h, p) => h === 'md5$x' && p === 'pw')).toBe(false);
  });

  it('the provider is a credentials provider with the address as its account field and no authorize', () => {
    const p = Password({ verifyImported: () => undefined });
    expect(p).toMatchObject({ id: 'password', type: 'credentials', identifier: 'email' });
    expect(Object.keys(p.credentials)).toEqual(['email', 'password']);
    expect('authorize' in p).toBe(false);
  });
});

describe('breachedRange against a local fake range server', () => {
  const sha1 = (s: string) => createHash('sha1').update(s, 'utf8').digest('hex').toUpperCase();
  const BREACHED = 'P@ssw0rd';
  const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
  let answer: (prefix: string) => { status: number; body: string } = () => ({ status: 200, body: '' });
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push({ url: req.url!, headers: req.headers });
      const { status, body } = answer(req.url!.split('/').at(-1)!);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/range/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** A padded answer as the real service gives: real suffixes with counts, padding lines with 0. */
  const padded = (prefix: string, real: Record<string, number>) => {
    const lines = Object.entries(real).map(([suffix, count]) => `${suffix}:${count}`);
    for (let i = 0; i < 800; i++) lines.push(`${createHash('sha1').update(`${prefix}${i}`).digest('hex').toUpperCase().slice(5)}:0`);
    return lines.join('\r\n');
  };

  it('sends only the 5-digit SHA-1 prefix, asks for padding, and finds the suffix', async () => {
    const digest = sha1(BREACHED);
    answer = (prefix) => ({ status: 200, body: padded(prefix, prefix === digest.slice(0, 5) ? { [digest.slice(5)]: 52_000 } : {}) });
    const isBreached = breachedRange({ url: base });
    requests.length = 0;
    expect(await isBreached(BREACHED)).toBe(true);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.url).toBe(`/range/${digest.slice(0, 5)}`);
    expect(requests[0]!.headers['add-padding']).toBe('true');
    expect(JSON.stringify(requests)).not.toContain(digest.slice(5));
    expect(await isBreached('a passphrase nobody used')).toBe(false);
  });

  it('reads a padding line (count 0) as not breached', async () => {
    const digest = sha1('only padding');
    answer = () => ({ status: 200, body: `${digest.slice(5)}:0\r\n${padded('x', {})}` });
    expect(await breachedRange({ url: base })('only padding')).toBe(false);
  });

  it('rejects when the service fails or answers too much, so the caller decides', async () => {
    answer = () => ({ status: 503, body: 'down' });
    await expect(breachedRange({ url: base })('anything')).rejects.toThrow(/503/);
    answer = () => ({ status: 200, body: 'A'.repeat(600 * 1024) });
    await expect(breachedRange({ url: base })('anything')).rejects.toThrow(/too large/);
  });

  it('hashNewPassword refuses a breached password, naming why', async () => {
    const digest = sha1(BREACHED);
    answer = (prefix) => ({ status: 200, body: padded(prefix, { [digest.slice(5)]: 3 }) });
    await expect(hashNewPassword(BREACHED, { hasher: cheap, breached: breachedRange({ url: base }) })).rejects.toMatchObject({ type: 'InvalidPassword', problem: 'breached' });
    await expect(hashNewPassword('a long unused passphrase', { hasher: cheap, breached: async () => false })).resolves.toMatch(/^\$argon2id\$/);
  });
});
