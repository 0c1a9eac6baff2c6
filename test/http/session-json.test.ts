// The session route writes its body with sessionJson, a direct writer for the default session's shape: it must give
// exactly JSON.stringify's text for every value, that shape or not.
import { describe, expect, it } from 'vitest';
import { sessionJson } from '../../src/http/session-json.js';

const expires = '2026-03-01T12:00:00.000Z';
const user = (name: unknown, email: unknown = 'a@example.test', image: unknown = undefined) => ({ name, email, image });

// A tiny deterministic generator: the same strings on every run.
function* strings(count: number): Generator<string> {
  let seed = 0x2545f491;
  const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8);
  const units = [0x00, 0x08, 0x09, 0x0a, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x2f, 0x3c, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f, 0x80, 0xe9, 0x2028, 0x2029, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfeff, 0xffff];
  for (let i = 0; i < count; i++) {
    let s = '';
    const length = next() % 12;
    for (let j = 0; j < length; j++) s += String.fromCharCode(next() % 3 === 0 ? units[next() % units.length] : 0x20 + (next() % 95));
    yield s;
  }
}

describe('sessionJson is JSON.stringify', () => {
  const cases: [string, unknown][] = [
    ['null', null],
    ['undefined', undefined],
    ['the default shape', { user: user('Ada'), expires }],
    ['every user field', { user: user('Ada', 'ada@example.test', 'https://img.example.test/a.png?x=1&y="2"'), expires }],
    ['null fields', { user: user(null, null, null), expires }],
    ['no fields', { user: user(undefined, undefined, undefined), expires }],
    ['a refresh error', { user: user('Ada'), expires, error: 'RefreshTokenError' }],
    ['an undefined error', { user: user('Ada'), expires, error: undefined }],
    ['a null error', { user: user('Ada'), expires, error: null }],
    ['a number name', { user: user(42), expires }],
    ['an object name', { user: user({ first: 'Ada' }), expires }],
    ['an extra session key', { user: user('Ada'), expires, role: 'admin' }],
    ['an extra user key', { user: { ...user('Ada'), id: 'u1' }, expires }],
    ['keys in another order', { expires, user: user('Ada') }],
    ['user fields in another order', { user: { email: 'a@example.test', name: 'Ada', image: undefined }, expires }],
    ['two user fields', { user: { name: 'Ada', email: 'a@example.test' }, expires }],
    ['no expires', { user: user('Ada') }],
    ['an undefined expires', { user: user('Ada'), expires: undefined }],
    ['a Date expires', { user: user('Ada'), expires: new Date(expires) }],
    ['a toJSON', { user: user('Ada'), expires, toJSON: () => 'x' }],
    ['a user toJSON', { user: { ...user('Ada'), toJSON: () => 'u' }, expires }],
    ['a class instance', new (class Session { user = user('Ada'); expires = expires; })()],
    ['a null-prototype object', Object.assign(Object.create(null), { user: user('Ada'), expires })],
    ['an array', [user('Ada'), expires]],
    ['a getter', Object.defineProperty({ user: user('Ada') }, 'expires', { get: () => expires, enumerable: true })],
    ['a non-enumerable error', Object.defineProperty({ user: user('Ada'), expires }, 'error', { value: 'RefreshTokenError', enumerable: false })],
    ['a symbol key', { user: user('Ada'), expires, [Symbol('s')]: 1 }],
    ['a string', 'session'],
    ['a number', 7],
  ];
  for (const [name, value] of cases) {
    it(name, () => expect(sessionJson(value)).toBe(JSON.stringify(value)));
  }

  it('strings of every kind: quotes, backslashes, controls, DEL, non-ASCII, line separators, lone surrogates', () => {
    for (const s of strings(3000)) {
      for (const session of [{ user: user(s, s, s), expires: s }, { user: user('Ada'), expires, error: s }]) {
        expect(sessionJson(session)).toBe(JSON.stringify(session));
      }
    }
  });

  it('an enumerable key added to Object.prototype sends every session to JSON.stringify', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 'x';
    try {
      const session = { user: user('Ada'), expires };
      expect(sessionJson(session)).toBe(JSON.stringify(session));
    } finally {
      delete proto.polluted;
    }
  });
});
