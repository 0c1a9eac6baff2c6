// Attacks on the Node middleware's lean session check (it answers `GET {basePath}/session` from the raw Node
// request): it must never answer a route the normal path would not, never believe a Host the normal path refuses,
// and its per-host memory must stay bounded whatever hosts a client sends.
import { connect } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import { ServerAuth } from '../../src/http/integrations/node.js';
import { parsedHostCount } from '../../src/http/integrations/node-session.js';
import { Credentials } from '../../src/index.js';
import { encodeSync } from '../../src/session/jwt.js';
import { closeHttpServer, listenLoopback } from '../e2e/peers/net.js';
import { recordingLogger, TEST_SECRET } from '../support/auth-app.js';

const lean = vi.hoisted(() => ({ taken: 0 }));
vi.mock('../../src/http/integrations/node-session.js', async (importOriginal) =>
  (await import('../support/lean-session-count.js')).countingLean(await importOriginal(), lean),
);

const COOKIE = 'authchart.session-token';
const cookie = `${COOKIE}=${encodeSync({ token: { sub: 'u1', name: 'Alice', email: 'alice@example.test', session_iat: Date.now() / 1000 }, secret: TEST_SECRET, salt: COOKIE })}`;
const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => closeHttpServer(s))));

async function serve(extra: Partial<AuthConfig>, mount?: string): Promise<number> {
  const middleware = ServerAuth({ secret: TEST_SECRET, trustHost: true, logger: recordingLogger(), providers: [Credentials({ credentials: {}, authorize: async () => null })], ...extra });
  const server = createServer((req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => {
    if (mount && req.url?.startsWith(`${mount}/`)) {
      req.originalUrl = req.url;
      req.url = req.url.slice(mount.length);
    }
    void middleware(req, res, () => res.writeHead(404, { 'content-type': 'text/plain' }).end('app page'));
  });
  servers.push(server);
  return listenLoopback(server);
}

function get(port: number, target: string, hosts: string[] = ['localhost:3000'], extra: string[] = []): Promise<{ status: number; body: string }> {
  const head = [`GET ${target} HTTP/1.1`, ...hosts.map((h) => `Host: ${h}`), ...extra, `Cookie: ${cookie}`, 'Connection: close'].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (data += d));
    socket.on('end', () => resolve({ status: Number(data.split(' ', 2)[1]), body: data.split('\r\n\r\n').slice(1).join('\r\n\r\n') }));
    socket.on('error', reject);
    socket.write(`${head}\r\n\r\n`);
  });
}

async function noLeanAnswer(run: () => Promise<{ status: number; body: string }>) {
  const before = lean.taken;
  const answer = await run();
  expect(lean.taken - before, 'the lean path answered').toBe(0);
  return answer;
}

describe('the lean Node session check cannot be steered', () => {
  it('a second Host header (the normal path reads both, and refuses) is never answered with a session', async () => {
    const port = await serve({});
    const answer = await noLeanAnswer(() => get(port, '/auth/session', ['localhost:3000', 'evil.test']));
    expect(answer.status).toBe(400);
    expect(answer.body).not.toContain('alice');
  });

  it('a Host off the trustHost list is refused on the lean path as on the normal one', async () => {
    const port = await serve({ trustHost: ['app.example.test'] });
    const before = lean.taken;
    const refused = await get(port, '/auth/session', ['evil.test']);
    expect(lean.taken - before).toBe(1);
    expect(refused).toEqual({ status: 400, body: '{"error":"UntrustedHost","message":"Bad request."}' });
    const forwarded = await get(port, '/auth/session', ['app.example.test'], ['X-Forwarded-Host: evil.test']);
    expect(forwarded.status).toBe(400);
  });

  it('a session path of another basePath falls through to the app', async () => {
    const port = await serve({ basePath: '/api/auth' });
    const other = await noLeanAnswer(() => get(port, '/auth/session'));
    expect(other.status).toBe(404);
    expect(other.body).toContain('app page');
    expect((await get(port, '/api/auth/session')).body).toContain('alice@example.test');
  });

  it('mounted under a path, req.url alone (rewritten by the framework) never makes a request authchart’s', async () => {
    const port = await serve({}, '/x');
    // req.url becomes /auth/session, but the request is /x/auth/session: not under basePath.
    const mounted = await noLeanAnswer(() => get(port, '/x/auth/session'));
    expect(mounted.status).toBe(404);
    expect(mounted.body).toContain('app page');
  });

  it('encoded, dot-segment, doubled-slash and absolute-form targets are left to the normal path', async () => {
    const port = await serve({});
    for (const target of ['/auth/%73ession', '/auth/./session', '/auth/x/../session', '/auth//session', '//auth/session', 'http://evil.test/auth/session', '/auth/session%3F', '/auth/session;x', '/auth/session/..']) {
      await noLeanAnswer(() => get(port, target));
    }
  });

  it('hosts a client makes up do not grow the lean path’s memory', async () => {
    const port = await serve({});
    for (let i = 0; i < 40; i++) await get(port, '/auth/session', [`h${i}.example.test`]);
    expect(parsedHostCount()).toBeLessThanOrEqual(16);
  });
});
