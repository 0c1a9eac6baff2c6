// Smoke tests for the real-peer harnesses (OP, SMTP, Chromium + virtual authenticator) and for the
// cookie-carrying test client: each harness is driven once for real so later e2e failures point at authchart.
import { createServer, type Server } from 'node:http';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import nodemailer, { type Transporter } from 'nodemailer';
import * as oauth from 'oauth4webapi';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, type FetchLike } from '../support/client.js';
import { CookieJar, parseSetCookie } from '../support/cookie-jar.js';
import { isLoopbackUrl, launchChromium, newPageWithVirtualAuthenticator } from './peers/browser.js';
import { decodeMail, decodeQuotedPrintable, extractLinks } from './peers/mail-decode.js';
import { closeHttpServer, listenLoopback } from './peers/net.js';
import { startOidcProvider, type OidcProviderHarness } from './peers/oidc.js';
import { startSmtpServer, type SmtpHarness } from './peers/smtp.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

describe('OpenID Provider harness', () => {
  const redirectUri = 'http://localhost:3000/auth/callback/oidc';
  let op: OidcProviderHarness;

  beforeAll(async () => {
    op = await startOidcProvider({ redirectUris: [redirectUri], scopes: ['api:read'] });
  });
  afterAll(() => op?.stop());

  function authorizationUrl(as: oauth.AuthorizationServer, params: Record<string, string>): URL {
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({ client_id: op.clientId, redirect_uri: redirectUri, response_type: 'code', ...params }).toString();
    return url;
  }

  async function codeGrant(as: oauth.AuthorizationServer, client: oauth.Client, params: URLSearchParams, verifier: string) {
    const clientAuth = oauth.ClientSecretBasic(op.clientSecret!);
    return oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, verifier, insecure);
  }

  async function discover(algorithm: 'oidc' | 'oauth2') {
    const issuer = new URL(op.issuer);
    return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm, ...insecure }));
  }

  it('serves discovery metadata on 127.0.0.1', async () => {
    expect(op.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const metadata = (await (await fetch(`${op.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ issuer: op.issuer, code_challenge_methods_supported: ['S256'] });
    expect(metadata.scopes_supported).toContain('api:read');
    expect(metadata.introspection_endpoint).toBe(`${op.issuer}/token/introspection`);
  });

  it('runs a code flow with PKCE, nonce and state to alice’s claims', async () => {
    const as = await discover('oidc');
    const client: oauth.Client = { client_id: op.clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const url = authorizationUrl(as, {
      scope: 'openid email profile',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });

    const next = await op.login(url, 'alice');
    expect(next.method).toBe('GET');
    expect(next.url.startsWith(`${redirectUri}?`)).toBe(true);

    const params = oauth.validateAuthResponse(as, client, new URL(next.url), state);
    const tokenResponse = await codeGrant(as, client, params, verifier);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse, { expectedNonce: nonce, requireIdToken: true });
    await oauth.validateApplicationLevelSignature(as, tokenResponse, insecure);
    const idToken = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(idToken).toMatchObject({ sub: 'alice', nonce, aud: op.clientId, iss: op.issuer });

    const userinfoResponse = await oauth.userInfoRequest(as, client, tokens.access_token, insecure);
    const userinfo = await oauth.processUserInfoResponse(as, client, idToken.sub, userinfoResponse);
    expect(userinfo).toEqual({ sub: 'alice', ...op.accounts.alice });
  });

  it('serves plain OAuth 2 (no openid) with a user-info endpoint that introspects the token', async () => {
    const as = await discover('oauth2');
    const client: oauth.Client = { client_id: op.clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = authorizationUrl(as, {
      scope: 'api:read',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const next = await op.login(url, 'alice');
    const params = oauth.validateAuthResponse(as, client, new URL(next.url), state);
    const tokenResponse = await codeGrant(as, client, params, verifier);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
    expect(tokens.id_token).toBeUndefined();
    expect(tokens.scope).toBe('api:read');

    const me = await fetch(op.userinfoEndpoint(), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ sub: 'alice', name: 'Alice Liddell', email: 'alice@example.test' });

    const forged = await fetch(op.userinfoEndpoint(), { headers: { authorization: 'Bearer not-a-token' } });
    expect(forged.status).toBe(401);
    await forged.body?.cancel();
  });

  it('works behind a frozen Date (tokens stamped with the frozen time)', async () => {
    const frozen = Date.UTC(2031, 5, 1, 12);
    vi.useFakeTimers({ toFake: ['Date'], now: frozen });
    try {
      const as = await discover('oidc');
      const client: oauth.Client = { client_id: op.clientId };
      const verifier = oauth.generateRandomCodeVerifier();
      const url = authorizationUrl(as, {
        scope: 'openid',
        state: 'frozen',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const params = oauth.validateAuthResponse(as, client, new URL((await op.login(url, 'bob')).url), 'frozen');
      const response = await codeGrant(as, client, params, verifier);
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { requireIdToken: true });
      expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({ sub: 'bob', iat: frozen / 1000 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('returns the form_post form, and access_denied when the user cancels', async () => {
    const as = await discover('oidc');
    const verifier = oauth.generateRandomCodeVerifier();
    const pkce = { code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' };
    const posted = await op.login(authorizationUrl(as, { scope: 'openid', state: 's1', response_mode: 'form_post', ...pkce }), 'bob');
    expect(posted).toMatchObject({ url: redirectUri, method: 'POST', form: { state: 's1', iss: op.issuer } });
    expect(posted.form?.code).toMatch(/^\S{20,}$/);

    const cancelled = await op.login(authorizationUrl(as, { scope: 'openid', state: 's2', ...pkce }), 'bob', { cancel: true });
    const query = new URL(cancelled.url).searchParams;
    expect([query.get('error'), query.get('state')]).toEqual(['access_denied', 's2']);
  });
});

describe('SMTP harness', () => {
  let smtp: SmtpHarness;
  let transport: Transporter;
  const link =
    `http://localhost:3000/auth/callback/email?token=${'9f'.repeat(32)}` +
    '&email=alice%40example.test&callbackUrl=%2Fdashboard%3Ftab%3Dsecurity';

  beforeAll(async () => {
    smtp = await startSmtpServer();
    transport = nodemailer.createTransport({ host: smtp.host, port: smtp.port, secure: false, ignoreTLS: true, pool: true });
  });
  afterAll(async () => {
    transport?.close();
    await smtp?.stop();
  });

  it('receives a message and gives back its long link byte-identical', async () => {
    expect(link.length).toBeGreaterThan(140);
    const info = await transport.sendMail({
      from: 'authchart <no-reply@example.test>',
      to: 'Alice@Example.test',
      subject: 'Sign in to authchart – ✓',
      text: `Sign in with this link:\n${link}\n`,
      html: `<p><a href="${link.replace(/&/g, '&amp;')}">Sign in</a></p>`,
    });
    expect(info).toMatchObject({ accepted: [expect.stringMatching(/^alice@example.test$/i)], rejected: [] });

    const mail = await smtp.waitForMessage('alice@example.test', { timeout: 2000 });
    expect(mail).toMatchObject({ from: 'no-reply@example.test', to: ['alice@example.test'], subject: 'Sign in to authchart – ✓' });
    expect(mail.links).toEqual([link]);
    expect(mail.text).toContain(link);
    expect(mail.raw).not.toContain(link); // it really was quoted-printable on the wire
  });

  it('answers 550 when told to, and recovers', async () => {
    smtp.rejectAll(true);
    await expect(transport.sendMail({ from: 'a@example.test', to: 'bob@example.test', text: 'x' })).rejects.toThrow(/550/);
    smtp.rejectAll(false);
    smtp.failNext(1);
    await expect(transport.sendMail({ from: 'a@example.test', to: 'bob@example.test', text: 'x' })).rejects.toThrow(/550/);
    await transport.sendMail({ from: 'a@example.test', to: 'bob@example.test', text: 'second try' });
    expect((await smtp.waitForMessage('bob@example.test')).text).toContain('second try');
  });

  it('decodes quoted-printable, MIME parts and links without a mail parser', () => {
    expect(decodeQuotedPrintable('caf=C3=A9 a=3Db=\r\nc')).toBe('café a=bc');
    expect(extractLinks('go to https://a.test/x?y=1. or (https://b.test/z)')).toEqual(['https://a.test/x?y=1', 'https://b.test/z']);
    const raw = [
      'Subject: =?UTF-8?B?w6ljaG8=?=',
      'Content-Type: multipart/alternative; boundary="--b1"',
      '',
      '----b1',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('see https://t.test/a?b=1&c=2').toString('base64'),
      '----b1',
      'Content-Type: text/html',
      '',
      '<a href="https://t.test/a?b=1&amp;c=2">x</a> <a href="https://t.test/html-only">y</a>',
      '----b1--',
      '',
    ].join('\r\n');
    expect(decodeMail(raw)).toMatchObject({
      subject: 'écho',
      text: 'see https://t.test/a?b=1&c=2',
      links: ['https://t.test/a?b=1&c=2', 'https://t.test/html-only'],
    });
  });
});

describe('Chromium harness with a virtual authenticator', () => {
  let browser: Browser;
  let server: Server;
  let origin: string;
  const challenges = new Map<string, string>();
  let stored: WebAuthnCredential | undefined;

  // The relying party: one page with two buttons' worth of script, and four JSON endpoints.
  const page = `<!doctype html><meta charset="utf-8"><title>rp</title><script>
    const json = async (path, body) => {
      const init = body ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {};
      return (await fetch(path, init)).json();
    };
    window.register = async () => {
      const options = PublicKeyCredential.parseCreationOptionsFromJSON(await json('/register/options'));
      return json('/register/verify', (await navigator.credentials.create({ publicKey: options })).toJSON());
    };
    window.signIn = async () => {
      const options = PublicKeyCredential.parseRequestOptionsFromJSON(await json('/login/options'));
      return json('/login/verify', (await navigator.credentials.get({ publicKey: options })).toJSON());
    };
  </script>`;

  async function route(path: string, body: unknown): Promise<unknown> {
    const expected = { expectedOrigin: origin, expectedRPID: 'localhost', requireUserVerification: true };
    switch (path) {
      case '/register/options': {
        const options = await generateRegistrationOptions({
          rpName: 'authchart test',
          rpID: 'localhost',
          userName: 'alice@example.test',
          attestationType: 'none',
          authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        });
        challenges.set('register', options.challenge);
        return options;
      }
      case '/register/verify': {
        const expectedChallenge = challenges.get('register')!;
        const result = await verifyRegistrationResponse({ response: body as RegistrationResponseJSON, expectedChallenge, ...expected });
        stored = result.registrationInfo?.credential;
        return { verified: result.verified, fmt: result.registrationInfo?.fmt };
      }
      case '/login/options': {
        const options = await generateAuthenticationOptions({ rpID: 'localhost', userVerification: 'required' });
        challenges.set('login', options.challenge);
        return options;
      }
      case '/login/verify': {
        const result = await verifyAuthenticationResponse({
          response: body as AuthenticationResponseJSON,
          expectedChallenge: challenges.get('login')!,
          credential: stored!,
          ...expected,
        });
        return { verified: result.verified, counter: result.authenticationInfo.newCounter };
      }
      default:
        throw new Error(`no route ${path}`);
    }
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html' }).end(page);
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
        route(req.url ?? '', body).then(
          (answer) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)),
          (error: unknown) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(error) })),
        );
      });
    });
    // Bound to 127.0.0.1 but opened as localhost: WebAuthn refuses an IP address as rpID.
    origin = `http://localhost:${await listenLoopback(server)}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    if (server) await closeHttpServer(server);
  });

  it('registers and signs in with a passkey, verified by @simplewebauthn/server', async () => {
    const tab = await newPageWithVirtualAuthenticator(browser);
    try {
      await tab.page.goto(`${origin}/`);
      const registered = await tab.page.evaluate(() => (window as unknown as { register(): Promise<unknown> }).register());
      expect(registered).toEqual({ verified: true, fmt: 'none' });
      const [credential] = await tab.credentials();
      expect(credential).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });

      const signedIn = await tab.page.evaluate(() => (window as unknown as { signIn(): Promise<unknown> }).signIn());
      expect(signedIn).toMatchObject({ verified: true });
    } finally {
      await tab.close();
    }
  });

  it('fences pages to loopback', () => {
    expect(isLoopbackUrl('http://localhost:1234/x')).toBe(true);
    expect(isLoopbackUrl('http://127.0.0.1/')).toBe(true);
    expect(isLoopbackUrl('data:text/plain,hi')).toBe(true);
    expect(isLoopbackUrl('https://fonts.googleapis.com/css')).toBe(false);
  });
});

describe('test client and cookie jar', () => {
  it('parses Set-Cookie attributes', () => {
    expect(parseSetCookie('authchart.session-token=a.b.c; Path=/; HttpOnly; SameSite=Lax; Max-Age=60')).toMatchObject({
      name: 'authchart.session-token',
      value: 'a.b.c',
      path: '/',
      httpOnly: true,
      secure: false,
      sameSite: 'Lax',
      maxAge: 60,
    });
    expect(parseSetCookie('x=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure')).toMatchObject({ expires: 0, secure: true });
    expect(parseSetCookie('no-equals-sign')).toBeUndefined();
  });

  it('honours deletions and expiry, and keeps hosts apart', () => {
    let now = Date.UTC(2030, 0, 1);
    const jar = new CookieJar({ now: () => now });
    jar.setFromLines('http://localhost:3000/a', ['a=1; Path=/', 'b=2; Max-Age=10', 'c=3']);
    jar.setFromLines('http://127.0.0.1:4000/', ['a=other']);
    expect(jar.header('http://localhost:3000/anything')).toBe('a=1; b=2; c=3');
    expect(jar.header('http://127.0.0.1:4000/')).toBe('a=other');
    expect(jar.get('a', 'localhost:3000')).toBe('1');
    expect(jar.get('a', 'http://127.0.0.1:4000')).toBe('other');

    jar.setFromLines('http://localhost:3000/', ['a=; Max-Age=0', 'c=; Expires=Thu, 01 Jan 1970 00:00:00 GMT']);
    expect(jar.all('localhost:3000').map((cookie) => cookie.name)).toEqual(['b']);
    now += 11_000;
    expect(jar.header('http://localhost:3000/')).toBe('');
    expect(jar.get('a')).toBe('other');

    jar.set('s', 'v', 'app.test', { secure: true });
    expect(jar.header('http://app.test/')).toBe('');
    expect(jar.header('https://app.test/')).toBe('s=v');
    jar.delete('s');
    expect(jar.all('app.test')).toEqual([]);
  });

  it('follows redirects across hosts with each host’s cookies and reports Set-Cookie per response', async () => {
    const seen: string[] = [];
    // Two in-process "hosts": an app that starts a flow and an identity provider that sends the user back.
    const fetchLike: FetchLike = async (request) => {
      const url = new URL(request.url);
      seen.push(`${request.method} ${url.host}${url.pathname} cookie=${request.headers.get('cookie') ?? ''}`);
      if (url.host === 'app.test' && url.pathname === '/signin') {
        const headers = [['location', 'http://idp.test/authorize'], ['set-cookie', 'flow=1; HttpOnly']] as [string, string][];
        return new Response(null, { status: 303, headers });
      }
      if (url.host === 'idp.test') return new Response(null, { status: 302, headers: { location: 'http://app.test/callback?code=c' } });
      if (url.pathname === '/callback') {
        const headers = [['location', '/home'], ['set-cookie', 'flow=; Max-Age=0'], ['set-cookie', 'session=s']] as [string, string][];
        return new Response(null, { status: 302, headers });
      }
      if (url.pathname === '/echo') return new Response(await request.text(), { status: 200 });
      return new Response('home', { status: 200 });
    };
    const client = createClient({ fetch: fetchLike, baseUrl: 'http://app.test' });

    const start = await client.post('/signin', { csrfToken: 't' });
    expect(start.setCookie).toEqual(['flow=1; HttpOnly']);
    const atIdp = await client.follow(start, { stopAt: (url) => url.host === 'idp.test' });
    expect(atIdp).toBe(start);
    expect(atIdp.location?.href).toBe('http://idp.test/authorize');

    const end = await client.follow(start);
    expect(end.status).toBe(200);
    expect(await end.text()).toBe('home');
    expect(end.history.map((res) => res.requestUrl.href)).toEqual([
      'http://app.test/signin',
      'http://idp.test/authorize',
      'http://app.test/callback?code=c',
    ]);
    expect(end.history[2].setCookie).toEqual(['flow=; Max-Age=0', 'session=s']);
    expect(seen).toEqual([
      'POST app.test/signin cookie=',
      'GET idp.test/authorize cookie=',
      'GET app.test/callback cookie=flow=1',
      'GET app.test/home cookie=session=s',
    ]);

    const echoed = await client.post('/echo', { a: '1' }, { json: true });
    expect(await echoed.text()).toBe('{"a":"1"}');
    expect(client.cookies.all('app.test').map((cookie) => cookie.name)).toEqual(['session']);
  });

  it('replays method and body on 307', async () => {
    const fetchLike: FetchLike = async (request) =>
      new URL(request.url).pathname === '/old'
        ? new Response(null, { status: 307, headers: { location: '/new' } })
        : new Response(`${request.method} ${await request.text()}`);
    const client = createClient({ fetch: fetchLike, baseUrl: 'http://app.test' });
    const res = await client.follow(await client.post('/old', 'x=1'));
    expect(await res.text()).toBe('POST x=1');
  });
});
