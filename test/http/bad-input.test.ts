import { describe, expect, it } from 'vitest';
import { CredentialsSignin, type AuthError } from '../../src/core/errors.js';
import { MAX_BODY_BYTES } from '../../src/http/request.js';
import { testAuth, ORIGIN, type TestAuth } from '../support/auth-app.js';
import { ADA, adaProvider, cookiesNamed, PASSWORD, SESSION_COOKIE, sessionWrites, signIn } from './helpers.js';

/** A POST to our routes with a raw body, carrying the client's cookies. */
async function rawPost(t: TestAuth, path: string, body: BodyInit, headers: Record<string, string>, init: RequestInit = {}) {
  return t.client.request(new Request(`${ORIGIN}${path}`, { method: 'POST', body, headers, ...init }));
}

async function expectJsonError(res: Response, status: number): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(await res.json()).toMatchObject({ error: 'InvalidRequest' });
}

describe('malformed bodies', () => {
  it.each(['/auth/callback/credentials', '/auth/session', '/auth/signout'])('answers 400 JSON to malformed JSON on %s', async (path) => {
    const t = testAuth({ providers: [adaProvider()] });
    await expectJsonError(await rawPost(t, path, '{"csrfToken": "abc", ', { 'content-type': 'application/json' }), 400);
  });

  it('answers 400 to a JSON body that is an array, not an object', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await rawPost(t, '/auth/callback/credentials', JSON.stringify([{ email: ADA.email, password: PASSWORD }]), { 'content-type': 'application/json' });
    await expectJsonError(res, 400);
  });

  it.each(['null', '"a string"', '42'])('answers 400 to the JSON body %s', async (body) => {
    const t = testAuth({ providers: [adaProvider()] });
    await expectJsonError(await rawPost(t, '/auth/callback/credentials', body, { 'content-type': 'application/json; charset=utf-8' }), 400);
  });

  it('answers 400 to a form with a repeated key, and never runs authorize', async () => {
    let authorized = 0;
    const t = testAuth({ providers: [adaProvider({ authorize: () => (authorized++, { ...ADA }) })] });
    const csrfToken = await t.csrfToken();
    const form = `csrfToken=${csrfToken}&email=${encodeURIComponent(ADA.email)}&password=a&password=b`;
    const res = await rawPost(t, '/auth/callback/credentials', form, { 'content-type': 'application/x-www-form-urlencoded' });
    await expectJsonError(res, 400);
    expect(authorized).toBe(0);
    expect(cookiesNamed(res, SESSION_COOKIE)).toEqual([]);
  });

  it('answers 400 to a repeated csrfToken even when one copy is right', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const csrfToken = await t.csrfToken();
    const res = await rawPost(t, '/auth/signout', `csrfToken=${csrfToken}&csrfToken=forged`, { 'content-type': 'application/x-www-form-urlencoded' });
    await expectJsonError(res, 400);
  });

  it('answers 400 to `a=1&a=2` on any POST route', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    await expectJsonError(await rawPost(t, '/auth/session', 'a=1&a=2', { 'content-type': 'application/x-www-form-urlencoded' }), 400);
  });
});

describe('oversized bodies', () => {
  const big = 'x'.repeat(MAX_BODY_BYTES + 1);

  // A person who pasted a file into the password field: their browser navigates, so it gets a page in its language
  // saying what happened (413), not a JSON body; a script's fetch of the same body still gets JSON 413.
  it.each([
    ['a navigation', { 'sec-fetch-mode': 'navigate', accept: 'text/html' }],
    ['an old browser without fetch metadata', { accept: 'text/html,application/xhtml+xml' }],
  ])('sends %s that posts an oversized form to the error page, which answers 413 in its language', async (_name, headers) => {
    const t = testAuth({ providers: [adaProvider()] });
    const body = `email=ada%40example.com&password=${big}`;
    const res = await rawPost(t, '/auth/callback/credentials', body, { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length), ...headers });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/auth/error?error=BodyTooLarge');
    const page = await t.client.request(new Request(`${ORIGIN}/auth/error?error=BodyTooLarge`, { headers: { accept: 'text/html', 'accept-language': 'ja' } }));
    expect(page.status).toBe(413);
    const text = await page.text();
    expect(text).toContain('送信された内容が大きすぎます');
    expect(text).not.toContain('Configuration');
  });

  it('keeps JSON 413 for a script that posts an oversized form', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const body = `email=${big}`;
    const res = await rawPost(t, '/auth/callback/credentials', body, { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-mode': 'cors', accept: 'text/html' });
    await expectJsonError(res, 413);
  });

  it('answers 413 to a declared content-length over 64 KiB', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const body = `email=${big}`;
    const res = await rawPost(t, '/auth/callback/credentials', body, { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) });
    await expectJsonError(res, 413);
  });

  it('answers 413 to a streamed body over 64 KiB without content-length', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 8) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const request = new Request(`${ORIGIN}/auth/callback/credentials`, { method: 'POST', body: stream, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit);
    await expectJsonError(await t.handle(request), 413);
    // It stopped reading once over the limit.
    expect(sent).toBeLessThan(8);
  });

  it('answers 413 and does not hang when the request was cloned before reaching authchart', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const request = new Request(`${ORIGIN}/auth/callback/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    // A logging middleware keeps a copy it never reads: the two bodies are a tee.
    const copy = request.clone();
    await expectJsonError(await t.handle(request), 413);
    expect(copy.bodyUsed).toBe(false);
  });

  it('accepts a body just under the limit', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const csrfToken = await t.csrfToken();
    const prefix = `csrfToken=${csrfToken}&email=${encodeURIComponent(ADA.email)}&password=${encodeURIComponent(PASSWORD)}&padding=`;
    const body = prefix + 'p'.repeat(MAX_BODY_BYTES - prefix.length);
    const res = await rawPost(t, '/auth/callback/credentials', body, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(302);
    expect(sessionWrites(res)).toHaveLength(1);
  });
});

describe('unknown actions', () => {
  const requests: [string, string][] = [
    ['GET', '/auth/nope'],
    ['PUT', '/auth/session'],
    ['DELETE', '/auth/signout'],
    ['GET', '/auth/signin/credentials'],
    ['GET', '/auth/session/extra'],
    ['POST', '/auth/providers'],
    ['GET', '/auth'],
  ];

  it.each(requests)('%s %s answers 400 with UnknownAction logged', async (method, path) => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await t.client.request(new Request(`${ORIGIN}${path}`, { method }));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toMatchObject({ error: 'UnknownAction' });
    expect(t.logger.errorTypes()).toEqual(['UnknownAction']);
  });
});

describe('HEAD requests', () => {
  it.each(['/auth/session', '/auth/csrf', '/auth/signin', '/auth/callback/credentials?code=x', '/auth/error', '/auth'])(
    'HEAD %s answers 405 with Allow, sets no cookie and logs no error',
    async (path) => {
      const t = testAuth({ providers: [adaProvider()] });
      await signIn(t);
      const res = await t.client.request(new Request(`${ORIGIN}${path}`, { method: 'HEAD' }));
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, POST');
      expect(res.setCookie).toEqual([]);
      expect(t.logger.errorTypes()).toEqual([]);
    },
  );
});

describe('unknown providers', () => {
  it.each([
    ['POST', '/auth/signin/nope'],
    ['POST', '/auth/callback/nope'],
    ['GET', '/auth/callback/nope'],
  ])('%s %s redirects to the Configuration error page with InvalidProvider logged', async (method, path) => {
    const t = testAuth({ providers: [adaProvider()] });
    const csrfToken = await t.csrfToken();
    const res = method === 'POST' ? await t.client.post(path, { csrfToken }) : await t.client.get(path);
    expect(res.status).toBe(302);
    expect(res.location?.pathname).toBe('/auth/error');
    expect(res.location?.searchParams.get('error')).toBe('Configuration');
    expect(t.logger.errorTypes()).toEqual(['InvalidProvider']);
  });
});

describe('credentials failures', () => {
  it('redirects to the sign-in page with CredentialsSignin and code=credentials when authorize returns null', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await signIn(t, { password: 'wrong' });
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials`);
    expect(cookiesNamed(res, SESSION_COOKIE)).toEqual([]);
    expect(t.logger.errorTypes()).toEqual(['CredentialsSignin']);
  });

  it("puts a thrown CredentialsSignin subclass's code in the URL", async () => {
    class WrongPassword extends CredentialsSignin {
      override code = 'bad_pw';
    }
    const t = testAuth({
      providers: [
        adaProvider({
          authorize: () => {
            throw new WrongPassword('password mismatch for ada');
          },
        }),
      ],
    });
    const res = await signIn(t);
    expect(res.location?.pathname).toBe('/auth/signin');
    expect(res.location?.searchParams.get('error')).toBe('CredentialsSignin');
    expect(res.location?.searchParams.get('code')).toBe('bad_pw');
    expect(res.location?.href).not.toContain('mismatch');
    expect(t.logger.errors[0]).toBeInstanceOf(WrongPassword);
  });

  it('reports any other throw from authorize as Configuration, logging the original', async () => {
    const t = testAuth({
      providers: [
        adaProvider({
          authorize: () => {
            throw new Error('connection refused to users-db:5432');
          },
        }),
      ],
    });
    const res = await signIn(t);
    expect(res.location?.pathname).toBe('/auth/error');
    expect(res.location?.searchParams.get('error')).toBe('Configuration');
    expect(res.location?.href).not.toContain('users-db');
    expect(t.logger.errorTypes()).toEqual(['CallbackRouteError']);
    expect((t.logger.errors[0] as AuthError).cause?.err).toMatchObject({ message: 'connection refused to users-db:5432' });
    expect(cookiesNamed(res, SESSION_COOKIE)).toEqual([]);
  });

  it('hands authorize the whole submitted form and the request', async () => {
    const seen: { credentials: Record<string, unknown>; request: Request }[] = [];
    const t = testAuth({ providers: [adaProvider({ authorize: (credentials, request) => (seen.push({ credentials, request }), { ...ADA }) })] });
    await signIn(t, { otp: '123456' });
    expect(seen[0]!.credentials).toMatchObject({ email: ADA.email, password: PASSWORD, otp: '123456' });
    expect(seen[0]!.request.url).toBe(`${ORIGIN}/auth/callback/credentials`);
  });
});

describe('the signIn callback', () => {
  it('false stops the sign-in with AccessDenied', async () => {
    const t = testAuth({ providers: [adaProvider()], callbacks: { signIn: () => false } });
    const res = await signIn(t);
    expect(res.location?.href).toBe(`${ORIGIN}/auth/error?error=AccessDenied`);
    expect(cookiesNamed(res, SESSION_COOKIE)).toEqual([]);
    expect(t.logger.errorTypes()).toEqual(['AccessDenied']);
  });

  it('a thrown error stops the sign-in with AccessDenied, keeping the message in the log', async () => {
    const t = testAuth({
      providers: [adaProvider()],
      callbacks: {
        signIn: () => {
          throw new Error('account suspended');
        },
      },
    });
    const res = await signIn(t);
    expect(res.location?.href).toBe(`${ORIGIN}/auth/error?error=AccessDenied`);
    expect(cookiesNamed(res, SESSION_COOKIE)).toEqual([]);
    expect(t.logger.errorTypes()).toEqual(['AccessDenied']);
    expect(t.logger.errors[0]!.message).toBe('account suspended');
  });

  it('a string redirects there, through the redirect callback, without a session', async () => {
    const redirects: { url: string; baseUrl: string }[] = [];
    const t = testAuth({
      providers: [adaProvider()],
      callbacks: {
        signIn: () => '/onboarding/verify',
        redirect: (p) => (redirects.push(p), p.url.startsWith('/') ? `${p.baseUrl}${p.url}` : p.baseUrl),
      },
    });
    const res = await signIn(t, { callbackUrl: '/dashboard' });
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${ORIGIN}/onboarding/verify`);
    expect(redirects).toContainEqual({ url: '/onboarding/verify', baseUrl: ORIGIN });
    expect(cookiesNamed(res, SESSION_COOKIE)).toEqual([]);
  });

  it('a string pointing off-site is kept on this origin by the default redirect callback', async () => {
    const t = testAuth({ providers: [adaProvider()], callbacks: { signIn: () => 'https://evil.example/steal' } });
    const res = await signIn(t);
    expect(res.location?.href).toBe(`${ORIGIN}/`);
  });

  it('gets the user, the credentials account and the submitted credentials', async () => {
    const seen: unknown[] = [];
    const t = testAuth({ providers: [adaProvider()], callbacks: { signIn: (p) => (seen.push(p), true) } });
    await signIn(t);
    expect(seen[0]).toMatchObject({
      user: { id: ADA.id, email: ADA.email },
      account: { provider: 'credentials', type: 'credentials', providerAccountId: ADA.id },
      credentials: { email: ADA.email, password: PASSWORD },
    });
  });
});

describe('the signIn event', () => {
  it('fires once on success with the user and account', async () => {
    const seen: unknown[] = [];
    const t = testAuth({ providers: [adaProvider()], events: { signIn: (m) => void seen.push(m) } });
    await signIn(t);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ user: { id: ADA.id, email: ADA.email }, account: { provider: 'credentials', providerAccountId: ADA.id } });
  });

  it('does not fire on a failed sign-in', async () => {
    const seen: unknown[] = [];
    const t = testAuth({ providers: [adaProvider()], events: { signIn: (m) => void seen.push(m) } });
    await signIn(t, { password: 'wrong' });
    expect(seen).toEqual([]);
  });

  it('a throwing handler is logged as EventError and the sign-in still succeeds', async () => {
    const t = testAuth({
      providers: [adaProvider()],
      events: {
        signIn: () => {
          throw new Error('webhook down');
        },
      },
    });
    const res = await signIn(t, { callbackUrl: '/home' });
    expect(res.location?.href).toBe(`${ORIGIN}/home`);
    expect(sessionWrites(res)).toHaveLength(1);
    expect(t.logger.errorTypes()).toEqual(['EventError']);
  });
});
