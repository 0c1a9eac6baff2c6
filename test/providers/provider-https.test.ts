// The provider transport over HTTPS, as every real provider is reached: a real TLS server on 127.0.0.1 with a
// certificate made for the test. Node reads extra trusted certificates only at start (NODE_EXTRA_CA_CERTS), so the
// requests run in a child process that trusts it; one that does not must refuse the connection.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeHttpServer, listenLoopback } from '../e2e/peers/net.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'authchart-https-'));
const certFile = join(dir, 'cert.pem');
const received: { method: string; url: string; body: string; authorization?: string }[] = [];
let server: ReturnType<typeof createServer>;
let origin = '';

// What the child runs: a discovery GET and a token POST through the transport, printed as JSON.
const CHILD = `
import { nodeProviderFetch, nodeTransportApplies } from ${JSON.stringify(join(ROOT, 'src/providers/provider-http.ts'))};
const origin = process.env.ORIGIN;
const out = { applies: nodeTransportApplies() };
try {
  const discovery = await nodeProviderFetch(origin + '/.well-known/openid-configuration', { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(5000) });
  out.discovery = { status: discovery.status, body: await discovery.json() };
  const token = await nodeProviderFetch(origin + '/token', { method: 'POST', headers: { authorization: 'Basic YXBwOnNlY3JldA==', 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' }, body: new URLSearchParams({ grant_type: 'authorization_code', code: 'abc' }), signal: AbortSignal.timeout(5000) });
  out.token = { status: token.status, body: await token.json() };
} catch (err) {
  out.error = String(err?.code ?? err?.message ?? err);
}
process.stdout.write(JSON.stringify(out));
`;

function runChild(env: Record<string, string>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ORIGIN: origin, ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  writeFileSync(certFile, pems.cert);
  server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', body, authorization: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url === '/token' ? '{"access_token":"at","token_type":"Bearer"}' : JSON.stringify({ issuer: origin, token_endpoint: `${origin}/token` }));
    });
  });
  origin = `https://127.0.0.1:${await listenLoopback(server)}`;
}, 60_000);
afterAll(async () => {
  await closeHttpServer(server);
  rmSync(dir, { recursive: true, force: true });
});

describe('provider requests over HTTPS', () => {
  it('reaches a provider whose certificate the process trusts: GET and form POST, over node:https', async () => {
    const out = await runChild({ NODE_EXTRA_CA_CERTS: certFile });
    expect(out).toEqual({
      applies: true,
      discovery: { status: 200, body: { issuer: origin, token_endpoint: `${origin}/token` } },
      token: { status: 200, body: { access_token: 'at', token_type: 'Bearer' } },
    });
    expect(received.slice(-2)).toEqual([
      { method: 'GET', url: '/.well-known/openid-configuration', body: '', authorization: undefined },
      { method: 'POST', url: '/token', body: 'grant_type=authorization_code&code=abc', authorization: 'Basic YXBwOnNlY3JldA==' },
    ]);
  });

  it('refuses a provider whose certificate nothing vouches for', async () => {
    const before = received.length;
    const out = await runChild({});
    expect(out.error).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(received.length).toBe(before);
  });
});
