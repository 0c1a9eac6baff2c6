// Table-driven exchange check for catalogue presets: the OAuth flow's own steps (prepareAuthorization, exchangeCode,
// which checks the callback first, and readProfile) run against one loopback fake per test file that answers as the
// provider documents, and the resulting user and account are compared with the case.
//
// Usage (one case per preset; the key is the preset id, or `id#label` for a second case of the same preset):
//
//   import { describeExchangeCases, type ExchangeCase } from './catalogue-exchange.js';
//   const cases: Record<string, ExchangeCase> = {
//     figma: {
//       factory: Figma,
//       authorize: { url: 'https://www.figma.com/oauth', scopes: ['current_user:read'] },
//       token: { url: 'https://api.figma.com/v1/oauth/token', reply: { json: { access_token: 'fig-at', token_type: 'bearer', expires_in: 7776000 } } },
//       routes: { 'GET https://api.figma.com/v1/me': { json: { id: '1', handle: 'Ann', email: 'ann@x.test', img_url: 'https://i.test/a' } } },
//       user: { id: '1', name: 'Ann', email: 'ann@x.test', image: 'https://i.test/a' },
//     },
//   };
//   describeExchangeCases('catalogue exchange: figma..', cases);
//
// Every URL in a case is the provider's REAL one (https://host/path). The harness rewrites the preset's endpoints
// (authorization, token, userinfo, issuer, wellKnown, jwks_endpoint) to `http://127.0.0.1:<port>/<case>/<host>/<path>`
// and the fake maps each request back, so routes are keyed by the documented URLs ("METHOD https://..." or just
// "https://..." for any method; the query is not part of the key: read it in a route function from `req.url`).
// A preset that calls further URLs must derive them from its configured endpoint (as GitHub does for /user/emails).
// OIDC: unless the case routes it itself, the fake serves `{issuer}/.well-known/openid-configuration` (endpoints from
// the case, overridable with `discovery`) and a JWKS; `idToken` claims are signed with a local key (iss, aud, nonce,
// iat, exp filled in unless given; an `https://` iss is rewritten like any URL) and added to the token reply.
// HS256 (LINE's web login) signs with the client secret, or `idTokenSecret`; an endpoint option the case gives as an
// object (`userinfo: { params }`) keeps its other members when the harness points its URL at the fake.
// Checked for every case: the authorization URL (endpoint, scopes, params, PKCE/state/nonce as the preset's checks
// say), the token request (grant, code, redirect_uri, verifier, client authentication, unless the preset makes its
// own token request), that each other request carried the access token, that every declared route was called and
// no undeclared one was, and finally `user` (toEqual) and `account` (toMatchObject, plus provider/type/id).
// `error: 'OAuthCallbackError'` (an AuthError type) instead expects the flow to fail with that error (and, with
// `errorMessage`, for that reason).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthError } from '../../src/core/errors.js';
import type { ResolvedProvider } from '../../src/core/provider.js';
import type { RequestContext } from '../../src/core/request-context.js';
import type { Account, User } from '../../src/core/types.js';
import { exchangeCode, oauthProviderFor, prepareAuthorization, readProfile } from '../../src/flows/oauth/steps.js';
import type { FlowDeps } from '../../src/flows/runtime/contract.js';
import { flowDeps } from '../../src/flows/runtime/deps.js';
import type { InternalOAuthProvider, OAuthProviderConfig } from '../../src/providers/oauth.js';
import { clearDiscoveryCache } from '../../src/providers/oauth-server.js';

/** What the fake answers. `json` is sent as application/json; `text` as is (set `headers['content-type']`). */
export interface FakeReply {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** A request the fake received, with its URL mapped back to the provider's real one. */
export interface FakeRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as a form (empty when it is not one). */
  form: URLSearchParams;
}

/** What the case's functions can use: the fake issuer, and `fake(url)` to rewrite a real URL the way the harness does. */
export interface FakeContext {
  /** The preset's issuer as rewritten (what `iss` must be), if it has one. */
  issuer?: string;
  /** The client id in effect (the `aud` of ID tokens). */
  clientId: string;
  /** The client secret in effect (the key of HS256 ID tokens). */
  clientSecret?: string;
  fake(realUrl: string): string;
  /** Signs claims with the fake's key, as an ID token is (aud, iat, exp, iss filled in): for signed user info. */
  sign(claims: Record<string, unknown>): Promise<string>;
  /** The JWKS reply with the fake's public key, for a case that serves its keys at a URL of its own. */
  jwks(): Promise<FakeReply>;
}

export type FakeRoute = FakeReply | ((req: FakeRequest, ctx: FakeContext) => FakeReply | Promise<FakeReply>);

export interface ExchangeCase {
  factory: (options?: any) => OAuthProviderConfig<any>;
  /** Overrides a user would pass (a tenant issuer, ...); clientId/clientSecret are added. */
  options?: Record<string, unknown>;
  /** The real authorization endpoint (origin + path), the scopes that must be asked for, and other params. */
  authorize: { url: string; scopes?: string[]; params?: Record<string, string>; clientIdParam?: string };
  /** The real token endpoint and its answer (default `{ access_token: 'at-1', token_type: 'Bearer', expires_in: 3600 }`). */
  token: { url: string; reply?: FakeRoute; check?: (req: FakeRequest) => void; method?: 'GET' | 'POST' };
  /** Every other URL the preset calls (user info, e-mail lists, ...), keyed `METHOD https://real/url` or `https://real/url`. */
  routes?: Record<string, FakeRoute>;
  /** Requests that need not carry the access token (keys as in `routes`). */
  anonymous?: string[];
  /** OIDC: claims of the ID token added to the token reply (a function gets the fake issuer). */
  idToken?: Record<string, unknown> | ((ctx: FakeContext) => Record<string, unknown>);
  /** OIDC: the ID token's signing algorithm (default the client's `id_token_signed_response_alg`, else RS256). */
  alg?: 'RS256' | 'ES256' | 'PS256' | 'EdDSA' | 'HS256';
  /** OIDC, HS256: the secret the ID token is signed with instead of the client secret (a forged token). */
  idTokenSecret?: string;
  /** OIDC: entries over the generated discovery document (real URLs; rewritten). */
  discovery?: Record<string, unknown>;
  /** Extra callback parameters the provider sends back (e.g. `iss`, or Apple's `user` form field via `formUser`). */
  callback?: Record<string, string> | ((ctx: FakeContext) => Record<string, string>);
  formUser?: string;
  user?: User;
  account?: Partial<Account>;
  /** Expect the flow to fail with this AuthError type instead. */
  error?: string;
  /** With `error`: what its message must match, so that it fails for the reason the case is about. */
  errorMessage?: RegExp;
}

/** The instant every exchange runs at (Date only is frozen; ID tokens are issued at it). */
export const EXCHANGE_NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const CLIENT_ID = 'client-123';
const CLIENT_SECRET = 'secret-456';
const DEFAULT_TOKENS = { access_token: 'at-1', token_type: 'Bearer', expires_in: 3600 };

interface Active {
  c: ExchangeCase;
  ctx: FakeContext;
  routes: Map<string, FakeRoute>;
  seen: { key: string; req: FakeRequest }[];
  unexpected: string[];
  /** The route key of the JWKS (OIDC), which needs no access token. */
  jwks?: string;
}

/** The loopback fake of one test file: requests under `/<case key>/` go to that case. */
class ExchangeFake {
  server?: Server;
  base = '';
  private readonly active = new Map<string, Active>();
  private keys = new Map<string, { key: CryptoKey; jwk: JWK }>();

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.handle(req.method ?? 'GET', req.url ?? '/', req.headers, Buffer.concat(chunks).toString('utf8'))
          .catch((err: unknown) => ({ status: 599, json: { error: 'harness_error', error_description: String(err) } }) as FakeReply)
          .then((reply) => {
            const headers: Record<string, string> = { ...reply.headers };
            const body = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
            if (reply.text === undefined && reply.json !== undefined) headers['content-type'] ??= 'application/json';
            res.writeHead(reply.status ?? 200, headers).end(body);
          });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** `https://host/path?q` -> `http://127.0.0.1:port/<slot>/host/path?q` (string surgery: `{tenantid}` stays as is). */
  fakeUrl(slot: string, real: string): string {
    return real.startsWith('https://') ? `${this.base}/${slot}/${real.slice('https://'.length)}` : real;
  }

  async signingKey(alg: string): Promise<{ key: CryptoKey; jwk: JWK }> {
    let k = this.keys.get(alg);
    if (!k) {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      k = { key: privateKey, jwk: { ...(await exportJWK(publicKey)), kid: `kid-${alg}`, alg, use: 'sig' } };
      this.keys.set(alg, k);
    }
    return k;
  }

  open(slot: string, c: ExchangeCase, ctx: FakeContext): Active {
    const routes = new Map<string, FakeRoute>();
    for (const [key, route] of Object.entries(c.routes ?? {})) routes.set(routeKey(key), route);
    const a: Active = { c, ctx, routes, seen: [], unexpected: [] };
    this.active.set(slot, a);
    return a;
  }

  close(slot: string): void {
    this.active.delete(slot);
  }

  private async handle(method: string, rawPath: string, headers: IncomingHttpHeaders, body: string): Promise<FakeReply> {
    const [, slot = '', ...rest] = rawPath.split('/');
    const a = this.active.get(slot);
    if (!a) return { status: 404, json: { error: 'no_case' } };
    const url = new URL(`https://${rest.join('/')}`);
    const form = (headers['content-type'] ?? '').includes('application/x-www-form-urlencoded') ? new URLSearchParams(body) : new URLSearchParams();
    const req: FakeRequest = { method, url, headers, body, form };
    const bare = `${url.origin}${url.pathname}`;
    const route = a.routes.get(`${method} ${bare}`) ?? a.routes.get(bare);
    const key = a.routes.has(`${method} ${bare}`) ? `${method} ${bare}` : bare;
    if (!route) {
      a.unexpected.push(`${method} ${url.href}`);
      return { status: 404, json: { error: 'not_found' } };
    }
    a.seen.push({ key, req });
    return typeof route === 'function' ? route(req, a.ctx) : route;
  }
}

/** `METHOD https://x/y` or `https://x/y`, normalised like the fake's lookups. */
function routeKey(key: string): string {
  const [first, second] = key.split(' ');
  if (second === undefined) return normalUrl(first!);
  return `${first!.toUpperCase()} ${normalUrl(second)}`;
}

function normalUrl(real: string): string {
  const u = new URL(real);
  return `${u.origin}${u.pathname}`;
}

const endpointHref = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : value && typeof value === 'object' && typeof (value as { url?: unknown }).url === 'string' ? (value as { url: string }).url : undefined;

/** The real URL behind a fake one (for assertions). */
function realOf(fake: ExchangeFake, slot: string, url: string): string {
  const prefix = `${fake.base}/${slot}/`;
  return url.startsWith(prefix) ? `https://${url.slice(prefix.length)}` : url;
}

/** Runs one case end to end; see the file's opening comment. */
export async function runExchangeCase(fake: ExchangeFake, key: string, c: ExchangeCase): Promise<void> {
  const id = key.split('#')[0]!;
  const slot = key.replace(/[^a-zA-Z0-9_-]/g, '_');
  const options = { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...c.options };
  const real = c.factory(options);
  expect(real.id).toBe(id);
  expect(real.style?.brandColor, 'style.brandColor').toMatch(/^#[0-9a-f]{6}$/i);

  // Point every endpoint the preset names at the fake, through the overrides a user would pass.
  const f = (u: string) => fake.fakeUrl(slot, u);
  const overrides: Record<string, unknown> = {};
  for (const k of ['authorization', 'token', 'userinfo'] as const) {
    const href = endpointHref(real[k]);
    // An endpoint the case configures as an object (params, a request) keeps all but its URL.
    const given = (options as Record<string, unknown>)[k];
    if (href) overrides[k] = given && typeof given === 'object' ? { ...given, url: f(href) } : f(href);
  }
  for (const k of ['issuer', 'defaultIssuer', 'wellKnown', 'jwks_endpoint'] as const) if (typeof real[k] === 'string') overrides[k] = f(real[k]);
  const config = c.factory({ ...options, ...overrides });
  const issuer = config.issuer ?? config.defaultIssuer;
  const alg = c.alg ?? (config.client?.id_token_signed_response_alg as ExchangeCase['alg']) ?? 'RS256';
  const ctx: FakeContext = {
    issuer,
    clientId: String(config.clientId ?? CLIENT_ID),
    clientSecret: typeof config.clientSecret === 'string' ? config.clientSecret : undefined,
    fake: f,
    sign: (claims) => signIdToken(fake, alg, claims, ctx, undefined),
    jwks: async () => ({ json: { keys: [(await fake.signingKey(alg)).jwk] } }),
  };
  const a = fake.open(slot, c, ctx);

  // The token endpoint, checking the request as RFC 6749 §4.1.3 and the preset's client authentication say.
  let tokenReq: FakeRequest | undefined;
  let idTokenSent: string | undefined;
  let accessTokenSent: unknown;
  let nonce: string | undefined;
  a.routes.set(`${c.token.method ?? 'POST'} ${normalUrl(c.token.url)}`, async (req, cx) => {
    tokenReq = req;
    const reply = typeof c.token.reply === 'function' ? await c.token.reply(req, cx) : (c.token.reply ?? { json: DEFAULT_TOKENS });
    if (reply.json && typeof reply.json === 'object') accessTokenSent = (reply.json as { access_token?: unknown }).access_token;
    if (!c.idToken || !reply.json || typeof reply.json !== 'object') return reply;
    idTokenSent = await signIdToken(fake, alg, typeof c.idToken === 'function' ? c.idToken(cx) : c.idToken, cx, nonce, c.idTokenSecret);
    return { ...reply, json: { ...(reply.json as object), id_token: idTokenSent } };
  });
  if (config.type === 'oidc' && issuer) addDiscovery(fake, a, c, { ...real, issuer: real.issuer ?? real.defaultIssuer }, alg);

  const callbackUrl = `https://app.test/auth/callback/${id}`;
  const deps: FlowDeps = flowDeps(
    { authUrl: 'https://app.test/auth', config: { env: {} }, method: 'GET', query: {}, body: {} } as unknown as RequestContext,
    config as unknown as ResolvedProvider,
    'https://app.test/',
  );
  const provider = oauthProviderFor(deps);

  try {
    const prepared = await prepareAuthorization(deps, {});
    nonce = prepared.nonce;
    const authUrl = new URL(realOf(fake, slot, prepared.url));
    const q = authUrl.searchParams;
    expect(`${authUrl.origin}${authUrl.pathname}`, 'authorization endpoint').toBe(normalUrl(c.authorize.url));
    expect(q.get('response_type')).toBe(c.authorize.params?.response_type ?? 'code');
    // `clientIdParam`: a provider that calls the client id otherwise (WeChat's appid).
    expect(q.get(c.authorize.clientIdParam ?? 'client_id')).toBe(provider.clientId);
    expect(q.get('redirect_uri')).toBe(callbackUrl);
    const pkce = provider.checks.includes('pkce');
    expect(q.get('code_challenge')).toBe(pkce ? await oauth.calculatePKCECodeChallenge(prepared.codeVerifier!) : null);
    expect(q.get('code_challenge_method')).toBe(pkce ? 'S256' : null);
    expect(q.get('state')).toBe(provider.checks.includes('state') ? prepared.state : null);
    expect(q.get('nonce')).toBe(provider.checks.includes('nonce') ? prepared.nonce : null);
    expect((q.get('scope') ?? '').split(/[ ,+]/).filter(Boolean), 'scopes').toEqual(expect.arrayContaining(c.authorize.scopes ?? []));
    for (const [k, v] of Object.entries(c.authorize.params ?? {})) expect(q.get(k), k).toBe(v);

    const code = `code-${slot}`;
    const params: Record<string, string> = { code, ...(prepared.state ? { state: prepared.state } : {}) };
    Object.assign(params, typeof c.callback === 'function' ? c.callback(ctx) : c.callback);
    const checks = { codeVerifier: prepared.codeVerifier, state: prepared.state, nonce: prepared.nonce };

    const run = async () => {
      const tokens = await exchangeCode(deps, params, checks);
      return readProfile(deps, tokens, c.formUser);
    };
    if (c.error) {
      const err = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, 'the flow should fail').toBeInstanceOf(AuthError);
      expect((err as AuthError).type).toBe(c.error);
      if (c.errorMessage) expect((err as AuthError).message).toMatch(c.errorMessage);
      return;
    }
    const { user, account } = await run();

    expect(a.unexpected, 'requests no route answers').toEqual([]);
    expect(tokenReq, 'token request').toBeDefined();
    if (!provider.token.request) checkTokenRequest(tokenReq!, provider, code, callbackUrl, prepared.codeVerifier);
    else expect(`${tokenReq!.url.search} ${tokenReq!.body}`, 'the code reaches the token endpoint').toContain(code);
    c.token.check?.(tokenReq!);
    if (c.idToken) expect(idTokenSent, 'ID token was issued').toBeDefined();

    // Every declared route was used, and each call to the provider's API carried the access token.
    const called = new Set(a.seen.map((s) => s.key));
    for (const k of Object.keys(c.routes ?? {})) expect(called.has(routeKey(k)), `route ${k} was called`).toBe(true);
    // (An enveloped token answer, Instagram's, has it only after the preset's conform: take the account's then.)
    const accessToken = typeof accessTokenSent === 'string' ? accessTokenSent : String(account.access_token ?? '');
    const urlOf = (key: string) => key.split(' ').pop()!;
    const anonymous = new Set((c.anonymous ?? []).map((k) => urlOf(routeKey(k))));
    for (const s of a.seen) {
      if (s.req === tokenReq || anonymous.has(urlOf(s.key)) || s.key.includes('/.well-known/') || s.key === a.jwks) continue;
      const carried = `${JSON.stringify(s.req.headers)} ${s.req.url.pathname} ${s.req.url.search} ${s.req.body}`;
      expect(accessToken && carried.includes(accessToken), `${s.key} carried the access token`).toBeTruthy();
    }

    expect(user).toEqual(c.user);
    expect(account).toMatchObject({ provider: id, type: config.type, providerAccountId: c.user!.id, ...c.account });
  } finally {
    fake.close(slot);
  }
}

function checkTokenRequest(req: FakeRequest, provider: InternalOAuthProvider, code: string, redirectUri: string, verifier: string | undefined): void {
  const method = provider.client.token_endpoint_auth_method;
  expect(req.form.get('grant_type')).toBe('authorization_code');
  expect(req.form.get('code')).toBe(code);
  expect(req.form.get('redirect_uri')).toBe(redirectUri);
  expect(req.form.get('code_verifier')).toBe(verifier ?? null);
  if (method === 'client_secret_basic') {
    // RFC 6749 §2.3.1: each half form-encoded, then base64.
    const [scheme, value = ''] = (req.headers.authorization ?? '').split(' ');
    expect(scheme).toBe('Basic');
    const halves = Buffer.from(value, 'base64').toString('utf8').split(':').map((h) => decodeURIComponent(h.replace(/\+/g, ' ')));
    expect(halves).toEqual([provider.clientId, provider.clientSecret]);
    expect(req.form.get('client_secret')).toBeNull();
  } else {
    expect(req.form.get('client_id')).toBe(provider.clientId);
    expect(req.form.get('client_secret')).toBe(method === 'client_secret_post' ? provider.clientSecret : null);
    expect(req.headers.authorization).toBeUndefined();
  }
}

async function signIdToken(fake: ExchangeFake, alg: string, claims: Record<string, unknown>, ctx: FakeContext, nonce: string | undefined, secret?: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const body: Record<string, unknown> = { aud: ctx.clientId, iat: now, exp: now + 3600, ...claims };
  body.iss = typeof claims.iss === 'string' ? ctx.fake(claims.iss) : ctx.issuer;
  // The nonce is the one of the authorization request the flow built.
  if (!('nonce' in claims) && nonce !== undefined) body.nonce = nonce;
  // OIDC Core §10.1: an HMAC-signed ID token's key is the client secret's octets.
  if (alg.startsWith('HS')) return new SignJWT(body).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret ?? ctx.clientSecret ?? ''));
  const { key, jwk } = await fake.signingKey(alg);
  return new SignJWT(body).setProtectedHeader({ alg, kid: jwk.kid!, typ: 'JWT' }).sign(key);
}

/** Serves the discovery document and the JWKS of an OIDC case unless it routes them itself. */
function addDiscovery(fake: ExchangeFake, a: Active, c: ExchangeCase, real: OAuthProviderConfig<any>, alg: string): void {
  const realIssuer = real.issuer!;
  const trimmed = realIssuer.replace(/\/$/, '');
  const underIssuer = (u: string | undefined) => (u?.startsWith('/') ? `${trimmed}${u}` : u);
  const jwksUri = underIssuer(real.jwks_endpoint) ?? (c.discovery?.jwks_uri as string | undefined) ?? `${trimmed}/jwks`;
  const doc: Record<string, unknown> = {
    issuer: realIssuer,
    authorization_endpoint: c.authorize.url,
    token_endpoint: c.token.url,
    userinfo_endpoint: underIssuer(endpointHref(real.userinfo)) ?? `${trimmed}/userinfo`,
    jwks_uri: jwksUri,
    response_types_supported: ['code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [alg],
    code_challenge_methods_supported: ['S256'],
    ...c.discovery,
  };
  const rewritten = Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, typeof v === 'string' ? a.ctx.fake(v) : v]));
  const wellKnown = underIssuer(real.wellKnown) ?? `${trimmed}/.well-known/openid-configuration`;
  if (!a.routes.has(`GET ${normalUrl(wellKnown)}`) && !a.routes.has(normalUrl(wellKnown))) a.routes.set(`GET ${normalUrl(wellKnown)}`, { json: rewritten });
  a.jwks = `GET ${normalUrl(jwksUri)}`;
  // (HMAC keys are secret: an HS256 issuer's JWKS has none of them.)
  if (!a.routes.has(a.jwks)) a.routes.set(a.jwks, (_req, ctx) => (alg.startsWith('HS') ? { json: { keys: [] } } : ctx.jwks()));
}

/**
 * One `describe` with a test per case, one fake for them all, the clock (Date only) frozen at {@link EXCHANGE_NOW}.
 *
 * @example
 * describeExchangeCases('catalogue exchange: a..k', { figma: { factory: Figma, ... } })
 */
export function describeExchangeCases(title: string, cases: Record<string, ExchangeCase>): void {
  describe(title, () => {
    const fake = new ExchangeFake();
    beforeAll(() => fake.start());
    afterAll(() => fake.stop());
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['Date'], now: EXCHANGE_NOW });
      clearDiscoveryCache();
    });
    afterEach(() => vi.useRealTimers());
    for (const [key, c] of Object.entries(cases)) it(key, () => runExchangeCase(fake, key, c));
  });
}
