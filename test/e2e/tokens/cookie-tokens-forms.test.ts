// getAccessToken with the provider tokens in the session cookie, in the h3 and Node/Express forms: a refresh writes
// the new session cookie on the response by itself (the h3 event's response; Express's `req.res`), and the next
// request with that cookie is answered without a refresh. Against a real OpenID Provider with rotation.
import type { Server } from 'node:http';
import express from 'express';
import { H3 } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAccessToken } from '../../../src/http/integrations/access-token.js';
import { ORIGIN } from '../../support/auth-app.js';
import { cookieTokenTestbed, type CookieTokenTestbed } from './cookie-harness.js';

let t: CookieTokenTestbed;
let server: Server;
let url: string;
let config: ReturnType<CookieTokenTestbed['config']>;

beforeAll(async () => {
  t = await cookieTokenTestbed();
  config = t.config();
  const app = express();
  app.get('/api/token', async (req, res, next) => {
    try {
      res.json({ token: await getAccessToken(req, config, 'oidc') });
    } catch (err) {
      next(err);
    }
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

describe('the refreshed session cookie reaches the response by itself', () => {
  it('h3: on the event', async () => {
    const app = new H3();
    app.get('/api/token', async (event) => ({ token: await getAccessToken(event, config, 'oidc') }));
    const cookie = t.expire(await t.signIn(config, 'alice'));
    const start = { ...t.grants };
    const res = await app.fetch(new Request(`${ORIGIN}/api/token`, { headers: { cookie } }));
    const { token } = (await res.json()) as { token: string };
    expect(t.grants.ok).toBe(start.ok + 1);
    const next = t.after(cookie, res.headers.getSetCookie());
    expect(t.claims(next).provider_tokens!.access_token).toBe(token);
    const again = await app.fetch(new Request(`${ORIGIN}/api/token`, { headers: { cookie: next } }));
    expect(((await again.json()) as { token: string }).token).toBe(token);
    expect(again.headers.getSetCookie()).toEqual([]);
    expect(t.grants.ok).toBe(start.ok + 1);
  });

  it('Express: on req.res', async () => {
    const cookie = t.expire(await t.signIn(config, 'bob'));
    const start = { ...t.grants };
    const res = await fetch(`${url}/api/token`, { headers: { cookie } });
    const { token } = (await res.json()) as { token: string };
    expect(t.grants.ok).toBe(start.ok + 1);
    const next = t.after(cookie, res.headers.getSetCookie());
    expect(t.claims(next).provider_tokens!.access_token).toBe(token);
    expect(await t.active(token)).toBe(true);
    const again = await fetch(`${url}/api/token`, { headers: { cookie: next } });
    expect(((await again.json()) as { token: string }).token).toBe(token);
    expect(t.grants.ok).toBe(start.ok + 1);
  });
});
