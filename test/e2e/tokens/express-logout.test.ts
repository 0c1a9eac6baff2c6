// Provider sign-out through Express (authchart/node's ServerAuth middleware) against oidc-provider with back-channel
// and RP-initiated logout on: the OP's own logout token, POSTed to the Express app, ends the user's database
// sessions; signing out through the Express app sends the browser to the OP's end_session_endpoint.
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sidOf } from '../../../src/core/id-token-sid.js';
import { ServerAuth } from '../../../src/http/integrations/node.js';
import { tokenTestbed, type TokenTestbed } from './harness.js';

let t: TokenTestbed;
let server: Server;
let url: string;
const received: number[] = [];

beforeAll(async () => {
  const app = express();
  // Listening first: the OP's client metadata needs the app's address.
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  t = await tokenTestbed({
    features: { backchannelLogout: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    // The OP refuses to call loopback addresses (its SSRF guard); the app under test lives on 127.0.0.1.
    opConfig: { fetch: (u: string, { dispatcher: _loopbackRefused, ...options }: RequestInit & { dispatcher?: unknown }) => fetch(u, options) },
    client: { backchannel_logout_uri: `${url}/auth/backchannel-logout/oidc`, backchannel_logout_session_required: true, post_logout_redirect_uris: [`${url}/auth/signout-callback/oidc`] },
    provider: { rpInitiatedLogout: true },
  });
  app.use((req, res, next) => {
    if (req.url.includes('/backchannel-logout/')) res.on('finish', () => received.push(res.statusCode));
    next();
  });
  app.use(ServerAuth(t.configs[1]));
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

const session = async (cookie: string) => (await (await t.apps[0].handle(new Request('http://localhost:3000/auth/session', { headers: { cookie } }))).json()) as { user?: unknown } | null;

describe('provider sign-out mounted in Express', () => {
  it("back-channel: the OP's logout token reaches the Express app and ends the user's sessions", async () => {
    const cookie = await t.signIn('alice');
    expect((await session(cookie))?.user).toBeTruthy();
    const [{ id_token }] = await t.sql<{ id_token: string }>(`SELECT id_token FROM accounts WHERE provider_account_id = 'alice'`);
    await t.opLogout('alice', sidOf(id_token)!);
    expect(received).toEqual([200]);
    expect(await session(cookie)).toBeNull();
  });

  it('RP-initiated: signing out through Express sends the browser to the OP with id_token_hint, state and the registered return', async () => {
    const cookie = await t.signIn('bob');
    const csrf = await fetch(`${url}/auth/csrf`, { headers: { cookie } });
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const csrfCookie = csrf.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const out = await fetch(`${url}/auth/signout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: [cookie, csrfCookie].filter(Boolean).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrfToken, callbackUrl: '/bye' }),
    });
    expect(out.status).toBe(302);
    const to = new URL(out.headers.get('location')!);
    expect(`${to.origin}${to.pathname}`).toBe(`${t.op.issuer}/session/end`);
    expect(to.searchParams.get('id_token_hint')).toBeTruthy();
    expect(to.searchParams.get('state')).toBeTruthy();
    expect(to.searchParams.get('post_logout_redirect_uri')).toBe(`${url}/auth/signout-callback/oidc`);
    expect(await session(cookie)).toBeNull();
  });
});
