// The end-to-end sign-in set on the other runtimes, from the packed tarball: Bun, Deno (--allow-net only, no NO_COLOR) and
// workerd through miniflare (nodejs_compat, a compatibility date before node:http came to workers). Each runtime
// serves test/runtimes/app over HTTP; a browser-like client signs in with credentials, by e-mail (the link sent to
// an HTTP sender fake) and through a real OpenID Provider (oidc-provider on 127.0.0.1), reads the session and signs
// out. The runtimes come from the npm registry (runtimes/, `npm --prefix runtimes ci`, which .ci/run runs).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readForms } from '../e2e/peers/html-form.js';
import { freePort } from '../e2e/peers/net.js';
import { startOidcProvider, type OidcProviderHarness } from '../e2e/peers/oidc.js';
import { createClient, type TestClient } from '../support/client.js';
import { csrfTokenOf, sessionOf, signInWithCredentials, signInWithOidc } from '../support/signin-over-http.js';
import { packAndInstall } from '../package/install.js';
import type { AppOptions } from './app/app.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'runtimes/node_modules/.bin');

const RUNTIMES = ['bun', 'deno', 'workerd'] as const;
type Runtime = (typeof RUNTIMES)[number];
const ADA = { email: 'ada@example.test', password: 'analytical-engine' };

interface Running {
  origin: string;
  stop(): Promise<void>;
}

/** A child process serving the app; resolves once it prints `listening`. */
function serveChild(command: string, args: string[], cwd: string, origin: string): Promise<Running> {
  // No NO_COLOR (or TERM): a dependency that reads them at import must fail here, as in an operator's shell.
  const child: ChildProcess = spawn(command, args, { cwd, env: { PATH: process.env.PATH, HOME: join(cwd, '.home'), DENO_DIR: join(cwd, '.deno'), DENO_NO_UPDATE_CHECK: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening \d+/.test(output)) {
        clearTimeout(timer);
        resolve({ origin, stop: async () => void child.kill() });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code}):\n${output}`));
    });
  });
}

async function serveWorkerd(dir: string, port: number, options: AppOptions): Promise<Running> {
  const outdir = join(dir, 'worker');
  // Bundled as Nitro's Cloudflare preset does, for workerd: its export conditions, Node builtins left to
  // nodejs_compat, and each import() kept as a chunk of its own (the Node bridge, loaded only for a Node request,
  // imports node:http, which workers before 2025-09 lack).
  await build({
    absWorkingDir: dir, entryPoints: ['worker.ts'], bundle: true, splitting: true, format: 'esm', platform: 'neutral', target: 'es2022', outdir, outExtension: { '.js': '.mjs' }, logLevel: 'error',
    conditions: ['workerd', 'worker', 'import', 'default'], mainFields: ['module', 'main'],
    // Optional peers this app does not install (passkeys, PostgreSQL, nodemailer), and the SAML library, loaded only
    // for an organization's SAML connection (this app has no SSO): their import() is never reached.
    external: ['node:*', '@simplewebauthn/server', '@simplewebauthn/server/helpers', 'pg', '@electric-sql/pglite', 'nodemailer', 'ioredis', 'redis', 'mermaid', '@node-saml/node-saml', '@xmldom/xmldom'],
  });
  // From runtimes/ (its own install), so typed here by hand for what this file uses.
  const { Miniflare } = (await import(pathToFileURL(join(ROOT, 'runtimes/node_modules/miniflare/dist/src/index.js')).href)) as {
    Miniflare: new (options: Record<string, unknown>) => { ready: Promise<URL>; dispose(): Promise<void> };
  };
  // Every chunk listed, the entry first: miniflare's own import scan refuses the computed import() authchart keeps
  // for the optional nodemailer.
  const chunks = readdirSync(outdir).filter((f) => f.endsWith('.mjs')).sort((a, b) => Number(b === 'worker.mjs') - Number(a === 'worker.mjs'));
  const mf = new Miniflare({
    host: '127.0.0.1', port,
    modulesRoot: outdir,
    modules: chunks.map((f) => ({ type: 'ESModule', path: join(outdir, f), contents: readFileSync(join(outdir, f), 'utf8') })),
    compatibilityDate: '2025-06-01', compatibilityFlags: ['nodejs_compat'],
    bindings: { CONFIG: JSON.stringify(options) },
  });
  await mf.ready;
  return { origin: `http://127.0.0.1:${port}`, stop: () => mf.dispose() };
}

describe('the sign-in set on Bun, Deno and workerd, from the packed tarball', () => {
  let dir: string;
  let op: OidcProviderHarness;
  let mailbox: Server;
  const mails: { identifier: string; url: string }[] = [];
  const apps = new Map<Runtime, Running>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authchart-runtimes-'));
    packAndInstall(dir);
    for (const f of ['app.ts', 'bun.ts', 'deno.ts', 'worker.ts']) copyFileSync(fileURLToPath(new URL(`./app/${f}`, import.meta.url)), join(dir, f));
    const ports = Object.fromEntries(await Promise.all(RUNTIMES.map(async (r) => [r, await freePort()] as const))) as Record<Runtime, number>;
    const origins = Object.fromEntries(RUNTIMES.map((r) => [r, `http://127.0.0.1:${ports[r]}`])) as Record<Runtime, string>;
    op = await startOidcProvider({ redirectUris: RUNTIMES.map((r) => `${origins[r]}/auth/callback/oidc`) });
    // The sender fake: an HTTP endpoint that takes each magic link as JSON.
    mailbox = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        mails.push(JSON.parse(body) as { identifier: string; url: string });
        res.end('ok');
      });
    });
    const mailboxPort = await freePort();
    await new Promise<void>((resolve) => mailbox.listen(mailboxPort, '127.0.0.1', resolve));
    const optionsFor = (r: Runtime): AppOptions => ({
      secret: randomBytes(32).toString('base64url'), origin: origins[r], issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret!, mailbox: `http://127.0.0.1:${mailboxPort}/`,
    });
    const [bun, deno, workerd] = await Promise.all([
      serveChild(join(BIN, 'bun'), ['bun.ts', String(ports.bun), JSON.stringify(optionsFor('bun'))], dir, origins.bun),
      // Exactly the permissions docs/deployment-deno.md names: --allow-net. No --allow-env: authchart reads the
      // environment through one door that takes a refusal as "unset", and nothing reads it at import.
      serveChild(join(BIN, 'deno'), ['run', '--allow-net', '--sloppy-imports', 'deno.ts', String(ports.deno), JSON.stringify(optionsFor('deno'))], dir, origins.deno),
      serveWorkerd(dir, ports.workerd, optionsFor('workerd')),
    ]);
    apps.set('bun', bun).set('deno', deno).set('workerd', workerd);
  }, 300_000);

  afterAll(async () => {
    for (const app of apps.values()) await app.stop().catch(() => {});
    await op?.stop();
    mailbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });

  describe.each(RUNTIMES)('%s', (runtime) => {
    const browser = (): TestClient => createClient({ baseUrl: apps.get(runtime)!.origin });
    const origin = () => apps.get(runtime)!.origin;

    it('credentials: signed in, the session read back, then signed out', async () => {
      const client = browser();
      const res = await signInWithCredentials(client, ADA, `${origin()}/home`);
      expect(res.status).toBe(302);
      expect(res.location?.href).toBe(`${origin()}/home`);
      expect((await sessionOf(client))?.user).toMatchObject({ name: 'Ada Lovelace', email: ADA.email });
      const out = await client.post('/auth/signout', { csrfToken: await csrfTokenOf(client), callbackUrl: `${origin()}/` });
      expect(out.status).toBe(302);
      expect(await sessionOf(client)).toBeNull();
    });

    it('a wrong password: the error page, no session', async () => {
      const client = browser();
      const res = await signInWithCredentials(client, { ...ADA, password: 'difference-engine' }, `${origin()}/home`);
      expect(res.location?.searchParams.get('error')).toBe('CredentialsSignin');
      expect(await sessionOf(client)).toBeNull();
    });

    it('e-mail: the link reaches the HTTP sender, following it signs in', async () => {
      const client = browser();
      const email = `grace-${runtime}@example.test`;
      const res = await client.post('/auth/signin/email', { csrfToken: await csrfTokenOf(client), email, callbackUrl: `${origin()}/inbox` });
      expect(res.status).toBe(302);
      expect(res.location?.pathname).toBe('/auth/verify-request');
      const mail = mails.find((m) => m.identifier === email);
      expect(mail?.url.startsWith(`${origin()}/auth/callback/email?`)).toBe(true);
      // The link opens the confirmation page; its button signs in (mail scanners that only open links do not).
      const page = await client.get(mail!.url);
      expect(page.status).toBe(200);
      const [form] = readForms(await page.text());
      expect(form?.method).toBe('POST');
      const back = await client.post(new URL(form.action, page.requestUrl), form.fields);
      expect(back.status).toBe(302);
      expect(back.location?.href).toBe(`${origin()}/inbox`);
      expect((await sessionOf(client))?.user?.email).toBe(email);
      // The link is single-use: confirming it again is refused (this adapter cannot tell a used token on opening).
      const other = browser();
      const reopened = await other.get(mail!.url);
      const [again] = readForms(await reopened.text());
      const refused = await other.post(new URL(again.action, reopened.requestUrl), again.fields);
      expect(refused.location?.searchParams.get('error')).toBe('Verification');
      expect(await sessionOf(other)).toBeNull();
    });

    it('OIDC against the real OpenID Provider: signed in as alice, then signed out', async () => {
      const client = browser();
      const { callback } = await signInWithOidc(client, op, 'alice', `${origin()}/after`);
      expect(callback.status).toBe(302);
      expect(callback.location?.href).toBe(`${origin()}/after`);
      expect((await sessionOf(client))?.user).toMatchObject({ email: 'alice@example.test', name: 'Alice Liddell' });
      await client.post('/auth/signout', { csrfToken: await csrfTokenOf(client), callbackUrl: `${origin()}/` });
      expect(await sessionOf(client)).toBeNull();
    });
  });
});
