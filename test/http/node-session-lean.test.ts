// The Node middleware answers `GET {basePath}/session` from the IncomingMessage itself (no web Request, no h3). That
// lean path must answer exactly as the normal one: the same raw requests go, over a real socket, to a server on the
// lean path (a static config) and to one on the normal path (the same config behind a function, which the lean path
// never takes); status line, every header in order (Set-Cookie included), body, logged errors and events must match.
import { connect } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import { ServerAuth } from '../../src/http/integrations/node.js';
import { Credentials } from '../../src/index.js';
import { decodeSync, encodeSync } from '../../src/session/jwt.js';
import { storedSessionToken } from '../../src/session/session-token.js';
import { closeHttpServer, listenLoopback } from '../e2e/peers/net.js';
import { recordingLogger, TEST_SECRET } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';

// Counts the checks the lean path took, so each case also says which path it exercised (a differential test whose
// lean side never ran would prove nothing).
const lean = vi.hoisted(() => ({ taken: 0 }));
vi.mock('../../src/http/integrations/node-session.js', async (importOriginal) =>
  (await import('../support/lean-session-count.js')).countingLean(await importOriginal(), lean),
);

const NOW = new Date('2026-03-01T12:00:00.000Z');
const COOKIE = 'authchart.session-token';
const DAY = 24 * 60 * 60;
const logger = recordingLogger();
const events: string[] = [];
const revoked = new Map<string, Date>();
const pg = useMigratedPGlite();

const alice = { sub: 'user-a', name: 'Alice', email: 'alice@example.test', picture: null, session_iat: NOW.getTime() / 1000 - 60, auth_time: NOW.getTime() / 1000 - 60, amr: ['pwd'] };

function base(extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: TEST_SECRET,
    trustHost: true,
    logger,
    providers: [Credentials({ credentials: { username: {} }, authorize: async () => null })],
    events: { session: ({ session }) => void events.push(JSON.stringify(session)) },
    ...extra,
    session: extra.session?.strategy === 'database' ? extra.session : { validAfter: { get: (id) => revoked.get(id) ?? null, set: () => {} }, ...extra.session },
  };
}

const configs = {
  jwt: () => base(),
  api: () => base({ basePath: '/api/auth' }),
  root: () => base({ basePath: '/' }),
  secure: () => base({ useSecureCookies: true }),
  listed: () => base({ trustHost: ['app.example.test'] }),
  untrusted: () => base({ trustHost: false }),
  callbacks: () =>
    base({
      callbacks: {
        jwt: ({ token }) => ({ ...token, seen: 'yes' }),
        session: ({ session, token }) => ({ ...session, role: (token as { role?: string }).role ?? 'member', seen: (token as { seen?: string }).seen }),
      },
    }),
  throwing: () => base({ callbacks: { session: () => { throw new Error('session callback failed'); } } }),
  storeDown: () => base({ session: { validAfter: { get: () => { throw new Error('store down'); }, set: () => {} } } }),
  database: () => base({ adapter: pg.adapter, session: { strategy: 'database' } }),
} satisfies Record<string, () => AuthConfig>;
type ConfigName = keyof typeof configs;

/** Two servers per config: the lean path (static config) and the normal one (the same config behind a function). */
interface Pair {
  lean: number;
  normal: number;
}
const servers: Server[] = [];
const pairs = new Map<string, Pair>();

/** An Express-style mount: req.url loses the prefix, originalUrl keeps it, anything not authchart's falls through. */
function serve(config: AuthConfig | (() => AuthConfig), mount: string | undefined): Server {
  const middleware = ServerAuth(config as AuthConfig);
  return createServer((req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => {
    if (mount && req.url?.startsWith(mount)) {
      req.originalUrl = req.url;
      req.url = req.url.slice(mount.length) || '/';
    }
    void middleware(req, res, (err) => res.writeHead(err ? 599 : 404, { 'content-type': 'text/plain' }).end(err ? 'app error' : 'app page'));
  });
}

async function pair(name: ConfigName, mount?: string): Promise<Pair> {
  const key = `${name}|${mount ?? ''}`;
  let found = pairs.get(key);
  if (!found) {
    const config = configs[name]();
    const a = serve(config, mount);
    const b = serve(() => config, mount);
    servers.push(a, b);
    found = { lean: await listenLoopback(a), normal: await listenLoopback(b) };
    pairs.set(key, found);
  }
  return found;
}

/** Sends a raw HTTP/1.1 request (exactly these bytes) and reads the whole answer. */
function exchange(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (data += d));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    socket.write(head);
  });
}

/**
 * The answer with what may differ between two equal answers made apart: the Date header, and the session cookies'
 * fresh values (a new JWE has a new IV and jti: its claims are compared instead; a database token by its label).
 */
function normalized(raw: string, labels: Map<string, string>): string {
  const [head, ...body] = raw.split('\r\n\r\n');
  const lines = head.split('\r\n').filter((l) => !/^date:/i.test(l));
  const out = lines.map((line) => {
    const m = /^(set-cookie: )([^=]+)=([^;]*)(.*)$/i.exec(line);
    if (m && m[2].includes('csrf-token')) return `${m[1]}${m[2]}=<random>${m[4]}`;
    if (!m || !m[2].includes('session-token') || m[3] === '') return line;
    const label = labels.get(m[3]);
    if (label) return `${m[1]}${m[2]}=<${label}>${m[4]}`;
    let claims: Record<string, unknown> | null;
    try {
      claims = decodeSync({ token: m[3], secret: TEST_SECRET, salt: m[2] });
    } catch {
      return line;
    }
    const { jti: _jti, ...kept } = claims ?? {};
    return `${m[1]}${m[2]}=<claims ${JSON.stringify(kept)}>${m[4]}`;
  });
  return [out.join('\r\n'), ...body].join('\r\n\r\n');
}

interface Case {
  name: string;
  config?: ConfigName;
  mount?: string;
  method?: string;
  target?: string;
  host?: string | string[] | null;
  headers?: string[];
  /** The cookie header (made anew for each side, so stateful cases start alike). */
  cookie?: () => Promise<string> | string;
  /** Whether the lean path must take it. */
  lean: boolean;
  /** The status both sides must answer (pins the case to what it means to test). */
  status: number;
  /** Text the body must hold. */
  body?: string;
  /** Whether the answer clears the session cookie. */
  clears?: boolean;
}

function token(claims: Record<string, unknown>, options: { at?: Date; maxAge?: number; secret?: string; salt?: string } = {}): string {
  if (options.at) vi.setSystemTime(options.at);
  try {
    return encodeSync({ token: claims, secret: options.secret ?? TEST_SECRET, salt: options.salt ?? COOKIE, maxAge: options.maxAge ?? 30 * DAY });
  } finally {
    vi.setSystemTime(NOW);
  }
}

const valid = () => `${COOKIE}=${token(alice)}`;
const secureValid = () => `__Secure-${COOKIE}=${token(alice, { salt: `__Secure-${COOKIE}` })}`;
const tampered = () => {
  const t = token(alice);
  return `${COOKIE}=${t.slice(0, -3)}${t.at(-3) === 'A' ? 'B' : 'A'}${t.slice(-2)}`;
};
function chunked(): string {
  const big = token({ ...alice, bio: 'x'.repeat(6000) });
  const half = Math.ceil(big.length / 2);
  return `other=1; ${COOKIE}.0=${big.slice(0, half)}; ${COOKIE}.1=${big.slice(half)}`;
}
let rows = 0;
async function databaseSession(expiresIn: number): Promise<string> {
  const user = (await pg.adapter.getUserByEmail!('db@example.test')) ?? (await pg.adapter.createUser!({ id: '', email: 'db@example.test', name: 'Db', emailVerified: null }));
  const value = `db-session-${++rows}-${'a'.repeat(40)}`;
  await pg.adapter.createSession!({ sessionToken: storedSessionToken(value), userId: user.id, expires: new Date(NOW.getTime() + expiresIn * 1000) });
  return value;
}

const cases: Case[] = [
  // JWT sessions, the paths the lean path takes.
  { name: 'no cookie', lean: true, status: 200, body: 'null' },
  { name: 'a valid session', cookie: valid, lean: true, status: 200, body: '"email":"alice@example.test"' },
  { name: 'a valid session, other cookies around it', cookie: () => `a=1; ${valid()}; b=2`, lean: true, status: 200 },
  { name: 'an expired token (cleared)', cookie: () => `${COOKIE}=${token(alice, { at: new Date(NOW.getTime() - 40 * DAY * 1000) })}`, lean: true, status: 200, clears: true },
  { name: 'a tampered token (cleared)', cookie: tampered, lean: true, status: 200, clears: true, body: 'null' },
  { name: 'a token of another secret (cleared)', cookie: () => `${COOKIE}=${token(alice, { secret: 'another-secret-that-is-long-enough-987654' })}`, lean: true, status: 200, clears: true },
  { name: 'garbage in the cookie', cookie: () => `${COOKIE}=not.a.jwe`, lean: true, status: 200, clears: true },
  { name: 'a chunked session cookie', cookie: chunked, lean: true, status: 200, body: '"email":"alice@example.test"' },
  { name: 'a broken chunk set (cleared)', cookie: () => chunked().replace(`${COOKIE}.0=`, `${COOKIE}.0=x`), lean: true, status: 200, clears: true },
  { name: 'due for its rolling refresh (rewritten)', cookie: () => `${COOKIE}=${token({ ...alice, session_iat: NOW.getTime() / 1000 - 3 * DAY }, { at: new Date(NOW.getTime() - 2 * DAY * 1000) })}`, lean: true, status: 200 },
  { name: 'ended elsewhere ("sessions valid after")', cookie: () => `${COOKIE}=${token({ ...alice, sub: 'user-revoked' })}`, lean: true, status: 200, clears: true, body: 'null' },
  { name: 'a query string', target: '/auth/session?x=1&y=%zz', cookie: valid, lean: true, status: 200 },
  { name: 'an empty query string', target: '/auth/session?', cookie: valid, lean: true, status: 200 },
  { name: 'an upper-case Host', host: 'LocalHost:3000', cookie: valid, lean: true, status: 200 },
  { name: 'the default port named', host: 'localhost:80', cookie: valid, lean: true, status: 200 },
  { name: 'X-Forwarded-Host and -Proto (trusted)', headers: ['X-Forwarded-Host: app.example.test', 'X-Forwarded-Proto: https'], cookie: secureValid, lean: true, status: 200, body: '"email":"alice@example.test"' },
  { name: 'a forged X-Forwarded-Host', headers: ['X-Forwarded-Host: evil.test/x?'], cookie: valid, lean: true, status: 400 },
  { name: 'a Host off the trustHost list', config: 'listed', host: 'evil.test', cookie: valid, lean: true, status: 400 },
  { name: 'a Host on the trustHost list', config: 'listed', host: 'app.example.test', cookie: valid, lean: true, status: 200 },
  { name: 'trustHost off, no AUTH_URL', config: 'untrusted', cookie: valid, lean: true, status: 500 },
  { name: 'secure cookies', config: 'secure', cookie: secureValid, lean: true, status: 200, body: '"email":"alice@example.test"' },
  { name: 'callbacks that change the token and the session (rewritten)', config: 'callbacks', cookie: valid, lean: true, status: 200, body: '"role":"member"' },
  { name: 'a session callback that throws', config: 'throwing', cookie: valid, lean: true, status: 200 },
  { name: 'a "sessions valid after" store that throws', config: 'storeDown', cookie: valid, lean: true, status: 200 },
  { name: 'basePath /api/auth', config: 'api', target: '/api/auth/session', cookie: valid, lean: true, status: 200 },
  { name: 'basePath /', config: 'root', target: '/session', cookie: valid, lean: true, status: 200 },
  { name: 'mounted (Express): originalUrl', mount: '/auth', cookie: valid, lean: true, status: 200 },
  // Database sessions.
  { name: 'database: a live session', config: 'database', cookie: async () => `${COOKIE}=${await databaseSession(20 * DAY)}`, lean: true, status: 200, body: '"email":"db@example.test"' },
  { name: 'database: due for its refresh', config: 'database', cookie: async () => `${COOKIE}=${await databaseSession(30 * DAY - 2 * DAY)}`, lean: true, status: 200 },
  { name: 'database: an unknown token (cleared)', config: 'database', cookie: () => `${COOKIE}=db-unknown-${'b'.repeat(40)}`, lean: true, status: 200, clears: true },
  { name: 'database: an expired row (cleared)', config: 'database', cookie: async () => `${COOKIE}=${await databaseSession(-60)}`, lean: true, status: 200, clears: true },
  // What the lean path leaves to the normal one, answered the same (through the normal path on both sides).
  { name: 'HEAD', method: 'HEAD', cookie: valid, lean: false, status: 405 },
  { name: 'POST without CSRF', method: 'POST', cookie: valid, headers: ['Content-Length: 0'], lean: false, status: 400 },
  { name: 'a trailing slash', target: '/auth/session/', cookie: valid, lean: false, status: 200 },
  { name: 'a double slash', target: '/auth//session', cookie: valid, lean: false, status: 400 },
  { name: 'a leading double slash', target: '//auth/session', cookie: valid, lean: false, status: 404 },
  { name: 'an encoded letter', target: '/auth/%73ession', cookie: valid, lean: false, status: 200 },
  { name: 'a dot segment', target: '/auth/x/../session', cookie: valid, lean: false, status: 200 },
  { name: 'another case', target: '/AUTH/session', cookie: valid, lean: false, status: 404 },
  { name: 'a longer path', target: '/auth/sessions', cookie: valid, lean: false, status: 400 },
  { name: 'a fragment', target: '/auth/session#x', cookie: valid, lean: false, status: 200 },
  { name: 'an absolute-form target', target: 'http://evil.test/auth/session', cookie: valid, lean: false, status: 200 },
  { name: 'a port no URL holds', host: 'localhost:99999', cookie: valid, lean: false, status: 400 },
  { name: 'a Host with a space', host: 'local host', cookie: valid, lean: false, status: 400 },
  { name: 'an IPv6 Host', host: '[::1]:3000', cookie: valid, lean: false, status: 200 },
  { name: 'two Host headers', host: ['localhost:3000', 'evil.test'], cookie: valid, lean: false, status: 400 },
  { name: 'no Host header (HTTP/1.0)', host: null, cookie: valid, lean: false, status: 200 },
  { name: 'mounted (Express): another path of the app', mount: '/auth', target: '/auth/sessionx', cookie: valid, lean: false, status: 400 },
];

function requestHead(c: Case, cookie: string | undefined): string {
  const hosts = c.host === undefined ? ['localhost:3000'] : c.host === null ? [] : [c.host].flat();
  const version = c.host === null ? 'HTTP/1.0' : 'HTTP/1.1';
  const lines = [`${c.method ?? 'GET'} ${c.target ?? '/auth/session'} ${version}`, ...hosts.map((h) => `Host: ${h}`), ...(c.headers ?? [])];
  if (cookie) lines.push(`Cookie: ${cookie}`);
  lines.push('Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n`;
}

beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
  revoked.set('user-revoked', new Date(NOW.getTime() - 1000));
});
afterEach(() => {
  logger.errors.length = 0;
  events.length = 0;
});
afterAll(async () => {
  vi.useRealTimers();
  await Promise.all(servers.map((s) => closeHttpServer(s)));
});

describe('the Node session check: the lean path answers exactly as the normal one', () => {
  for (const c of cases) {
    it(`${c.name}: same status, headers, cookies, body, logs and events (${c.lean ? 'lean' : 'normal'} path)`, async () => {
      const ports = await pair(c.config ?? 'jwt', c.mount);
      const answers: { raw: string; cookie?: string; errors: string[]; events: string[] }[] = [];
      for (const [side, port] of [['lean', ports.lean], ['normal', ports.normal]] as const) {
        const cookie = await c.cookie?.();
        const before = lean.taken;
        logger.errors.length = 0;
        events.length = 0;
        const raw = await exchange(port, requestHead(c, cookie));
        expect(lean.taken - before, `${side}: lean path taken`).toBe(side === 'lean' && c.lean ? 1 : 0);
        answers.push({ raw, cookie, errors: logger.errorTypes(), events: [...events] });
      }
      // Tokens made for each side (database rows) are compared by their role, not their random value.
      const labels = new Map<string, string>();
      for (const a of answers) {
        const value = a.cookie?.match(/session-token=([^;]+)/)?.[1];
        if (value && c.config === 'database') labels.set(value, 'this side’s token');
      }
      const [leanSide, normalSide] = answers.map((a) => ({ ...a, raw: normalized(a.raw, labels), cookie: undefined }));
      expect(leanSide.raw.split('\r\n', 1)[0]).toBe(`HTTP/1.1 ${c.status} ${STATUS_TEXT[c.status]}`);
      expect(leanSide).toEqual(normalSide);
      if (c.body) expect(leanSide.raw.split('\r\n\r\n')[1]).toContain(c.body);
      expect(/\r\nset-cookie: [^=]*session-token[^=]*=; /i.test(leanSide.raw), 'clears the session cookie').toBe(c.clears ?? false);
    });
  }
});

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 500: 'Internal Server Error' };

describe('what the differential cases cover', () => {
  it('a check with a live session answers the session, and a refresh writes the cookie on both paths', async () => {
    const ports = await pair('jwt');
    const c = cases.find((x) => x.name.startsWith('due for its rolling refresh'))!;
    const raw = await exchange(ports.lean, requestHead(c, await c.cookie!()));
    expect(raw).toMatch(/\r\nset-cookie: authchart\.session-token=[^;]{100,}; /i);
    expect(raw.split('\r\n\r\n')[1]).toContain('"email":"alice@example.test"');
  });
});
