// Catalogue providers' custom requests and token conformers, against a real HTTP server on loopback
// (standing in for each provider's API) and oauth4webapi's own token response validation.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenSet } from '../../src/core/types.js';
import type { OAuthProviderConfig } from '../../src/providers/oauth.js';
import { normalizeOAuthProvider, type InternalOAuthProvider } from '../../src/providers/oauth-normalize.js';
import { Bitbucket, Dropbox, GitHub, Notion, Reddit, Slack, Twitch, VK, Yandex } from '../../src/providers/catalogue/index.js';

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}
const seen: Seen[] = [];
type Route = (req: Seen) => { status?: number; json: unknown };
const routes = new Map<string, Route>();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const entry: Seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      seen.push(entry);
      const route = routes.get(`${entry.method} ${entry.path}`);
      const out = route ? route(entry) : { status: 404, json: { message: 'Not Found' } };
      res.writeHead(out.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(out.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function normalize(config: OAuthProviderConfig<any>): InternalOAuthProvider {
  return normalizeOAuthProvider(config, { env: {}, callbackUrl: `https://app.test/auth/callback/${config.id}` });
}
async function userinfo(config: OAuthProviderConfig<any>, tokens: TokenSet = { access_token: 'tok-1', token_type: 'bearer' }) {
  const provider = normalize(config);
  seen.length = 0;
  return provider.userinfo.request!({ tokens, provider });
}

describe('catalogue user-info requests', () => {
  it('github: fills a private e-mail from /user/emails (primary, verified)', async () => {
    routes.set('GET /api/v3/user', () => ({ json: { id: 1, login: 'mona', email: null, avatar_url: 'https://a.test/1' } }));
    routes.set('GET /api/v3/user/emails', () => ({
      json: [
        { email: 'old@example.com', primary: false, verified: true, visibility: null },
        { email: 'Mona@Example.com', primary: true, verified: true, visibility: 'private' },
      ],
    }));
    const profile = await userinfo(GitHub({ userinfo: `${base}/api/v3/user` }));
    expect(profile).toMatchObject({ id: 1, login: 'mona', email: 'Mona@Example.com' });
    expect(seen.map((s) => s.path)).toEqual(['/api/v3/user', '/api/v3/user/emails']);
    expect(seen[0]!.headers).toMatchObject({ authorization: 'Bearer tok-1', 'user-agent': 'authchart' });
  });

  it('github: does not call /user/emails when the profile has an e-mail, and tolerates a missing scope', async () => {
    routes.set('GET /public/user', () => ({ json: { id: 2, login: 'pub', email: 'pub@example.com' } }));
    expect(await userinfo(GitHub({ userinfo: `${base}/public/user` }))).toMatchObject({ email: 'pub@example.com' });
    expect(seen).toHaveLength(1);
    routes.set('GET /noscope/user', () => ({ json: { id: 3, login: 'ns', email: null } }));
    routes.set('GET /noscope/user/emails', () => ({ status: 404, json: { message: 'Not Found' } }));
    expect(await userinfo(GitHub({ userinfo: `${base}/noscope/user` }))).toMatchObject({ email: null });
  });

  it('bitbucket: adds the primary confirmed address from /2.0/user/emails', async () => {
    routes.set('GET /2.0/user', () => ({ json: { uuid: '{u-1}', display_name: 'Evan', links: { avatar: { href: 'https://a.test/e' } } } }));
    routes.set('GET /2.0/user/emails', () => ({
      json: { values: [{ email: 'evan@example.com', is_primary: true, is_confirmed: true, type: 'email' }] },
    }));
    expect(await userinfo(Bitbucket({ userinfo: `${base}/2.0/user` }))).toMatchObject({ uuid: '{u-1}', email: 'evan@example.com' });
  });

  it('dropbox: POSTs to the RPC endpoint with no body', async () => {
    routes.set('POST /2/users/get_current_account', () => ({ json: { account_id: 'dbid:1', name: { display_name: 'Franz' }, email: 'f@d.test' } }));
    expect(await userinfo(Dropbox({ userinfo: `${base}/2/users/get_current_account` }))).toMatchObject({ account_id: 'dbid:1' });
    expect(seen[0]).toMatchObject({ method: 'POST', body: '' });
    expect(seen[0]!.headers['content-type']).toBeUndefined();
  });

  it("notion: returns the bot owner's person object", async () => {
    const person = { object: 'user', id: 'p-1', type: 'person', name: 'Avo', avatar_url: null, person: { email: 'avo@example.org' } };
    routes.set('GET /v1/users/me', () => ({ json: { object: 'user', id: 'bot-1', type: 'bot', bot: { owner: { type: 'user', user: person } } } }));
    expect(await userinfo(Notion({ userinfo: `${base}/v1/users/me` }))).toEqual(person);
    expect(seen[0]!.headers['notion-version']).toBe('2022-06-28');
    routes.set('GET /ws/users/me', () => ({ json: { object: 'user', id: 'bot-2', type: 'bot', bot: { owner: { type: 'workspace', workspace: true } } } }));
    await expect(userinfo(Notion({ userinfo: `${base}/ws/users/me` }))).rejects.toThrow(/not owned by a user/);
  });

  it('yandex: uses the OAuth scheme and asks for JSON', async () => {
    routes.set('GET /info?format=json', () => ({ json: { id: '1000034426', login: 'ivan' } }));
    expect(await userinfo(Yandex({ userinfo: `${base}/info` }))).toMatchObject({ login: 'ivan' });
    expect(seen[0]!.headers.authorization).toBe('OAuth tok-1');
  });

  it('reddit: sends a descriptive User-Agent', async () => {
    routes.set('GET /api/v1/me', () => ({ json: { id: '1w72', name: 'spez' } }));
    await userinfo(Reddit({ userinfo: `${base}/api/v1/me` }));
    expect(seen[0]!.headers['user-agent']).toBe('web:authchart:v1');
  });

  it('a failing API call surfaces its status', async () => {
    routes.set('GET /down/user', () => ({ status: 503, json: { message: 'unavailable' } }));
    await expect(userinfo(GitHub({ userinfo: `${base}/down/user` }))).rejects.toThrow(/503/);
  });
});

describe('vk: VK ID token exchange and user info', () => {
  it('exchanges the code with the device_id, verifier and state, then reads user_info', async () => {
    routes.set('POST /oauth2/auth', () => ({
      json: { access_token: 'vk-at', refresh_token: 'vk-rt', id_token: 'vk-idt', token_type: 'Bearer', expires_in: 3600, user_id: 1234567890, state: 'st', scope: 'vkid.personal_info email' },
    }));
    routes.set('POST /oauth2/user_info', () => ({ json: { user: { user_id: '1234567890', first_name: 'Ivan', last_name: 'Ivanov' } } }));
    const provider = normalize(VK({ clientId: '51234567', token: `${base}/oauth2/auth`, userinfo: `${base}/oauth2/user_info` }));
    seen.length = 0;
    const { tokens } = await provider.token.request!({
      params: { code: 'c-1', state: 'st', device_id: 'dev-9', type: 'code_v2' },
      checks: { code_verifier: 'verifier-43', state: 'st' },
      provider,
    });
    expect(tokens).toMatchObject({ access_token: 'vk-at', token_type: 'Bearer' });
    expect(Object.fromEntries(new URLSearchParams(seen[0]!.body))).toEqual({
      grant_type: 'authorization_code',
      code: 'c-1',
      code_verifier: 'verifier-43',
      client_id: '51234567',
      device_id: 'dev-9',
      redirect_uri: 'https://app.test/auth/callback/vk',
      state: 'st',
    });
    const profile = await provider.userinfo.request!({ tokens, provider });
    expect(profile).toMatchObject({ user_id: '1234567890', first_name: 'Ivan' });
    expect(Object.fromEntries(new URLSearchParams(seen[1]!.body))).toEqual({ client_id: '51234567', access_token: 'vk-at' });
  });
});

describe('token.conform hooks, checked by oauth4webapi', () => {
  const as: oauth.AuthorizationServer = { issuer: 'https://as.test', token_endpoint: 'https://as.test/token' };
  const client: oauth.Client = { client_id: 'c' };
  const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  it("twitch: an array scope is joined, so oauth4webapi accepts the response", async () => {
    const conform = normalize(Twitch()).token.conform!;
    const body = { access_token: 'at', refresh_token: 'rt', expires_in: 14000, scope: ['openid', 'user:read:email'], token_type: 'bearer' };
    await expect(oauth.processAuthorizationCodeResponse(as, client, json(body))).rejects.toThrow(/scope/);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await conform(json(body)));
    expect(tokens.scope).toBe('openid user:read:email');
  });

  it('github and slack: an error answered with 200 becomes an OAuth error response', async () => {
    for (const config of [GitHub(), Slack()]) {
      const conform = normalize(config).token.conform!;
      const body = { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' };
      const error = await oauth.processAuthorizationCodeResponse(as, client, await conform(json(body))).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(oauth.ResponseBodyError);
      expect((error as oauth.ResponseBodyError).error).toBe('bad_verification_code');
    }
  });

  it('leave ordinary responses untouched', async () => {
    const ok = json({ access_token: 'at', token_type: 'bearer', scope: 'read:user' });
    expect(await normalize(GitHub()).token.conform!(ok)).toBe(ok);
    expect(await normalize(Twitch()).token.conform!(ok)).toBe(ok);
    const failure = json({ error: 'invalid_grant' }, 400);
    expect(await normalize(GitHub()).token.conform!(failure)).toBe(failure);
  });
});
