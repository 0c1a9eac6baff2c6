// A real OpenID Provider (oidc-provider) on 127.0.0.1 for end-to-end tests, with a scripted user who signs in
// through its dev interaction pages, and a tiny resource endpoint for plain OAuth 2 providers.
import { generateKeyPair, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import type { ClientMetadata, KoaContextWithOIDC, Provider } from 'oidc-provider';
import { createClient, type ClientResponse, type Navigation } from '../../support/client.js';
import type { CookieJar } from '../../support/cookie-jar.js';
import { readForms, readLinks } from './html-form.js';
import { closeHttpServer, listenLoopback } from './net.js';

/** Claims of one test account; `sub` is the account id. */
export interface AccountClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
  [claim: string]: unknown;
}

/** The default client's credentials, exported so tests can configure the app under test with them. */
export const DEFAULT_CLIENT_ID = 'authchart-test';
export const DEFAULT_CLIENT_SECRET = 'authchart-test-secret-0123456789';
/** Redirect URI of the default client when none is passed. */
export const DEFAULT_REDIRECT_URI = 'http://localhost:3000/auth/callback/oidc';

/** Two users, enough for "signs in as alice", "bob cannot see alice's session", account linking... */
export const DEFAULT_ACCOUNTS: Readonly<Record<string, AccountClaims>> = Object.freeze({
  alice: { email: 'alice@example.test', email_verified: true, name: 'Alice Liddell' },
  bob: { email: 'bob@example.test', email_verified: false, name: 'Bob Builder' },
});

// The resource server that introspects tokens for the plain-OAuth2 user-info endpoint; a client of its own, as a
// real resource server would be.
const RESOURCE_CLIENT_ID = 'authchart-test-resource-server';
const RESOURCE_CLIENT_SECRET = randomBytes(24).toString('base64url');
const USERINFO_PATH = '/test-resource/userinfo';

/** Options for {@link startOidcProvider}. */
export interface OidcProviderOptions {
  /** Redirect URIs of the default client (ignored when `clients` is given). Default {@link DEFAULT_REDIRECT_URI}. */
  redirectUris?: string[];
  /** Replaces the default client: oidc-provider client metadata (snake_case). */
  clients?: ClientMetadata[];
  /** Account id -> claims. Default {@link DEFAULT_ACCOUNTS} (alice, bob). */
  accounts?: Record<string, AccountClaims>;
  /** Scopes beyond openid/offline_access/email/profile, e.g. `api:read`; an unlisted scope is silently dropped. */
  scopes?: string[];
  /** Require PKCE from every client, confidential ones included (default true). */
  pkceRequired?: boolean;
  /** Merged into `features`, per feature (e.g. `{ revocation: { enabled: true } }`). */
  features?: Record<string, Record<string, unknown>>;
  /** Grant every requested scope without a consent page (default true); `prompt=consent` still shows it. */
  skipConsent?: boolean;
  /** ID token lifetime in seconds (default 3600); short values plus an advanced `Date` test expiry. */
  idTokenTtl?: number;
  /** Access token lifetime in seconds (default 3600). */
  accessTokenTtl?: number;
  /** Seconds of clock skew the OP tolerates (default 0). */
  clockTolerance?: number;
  /** Fixed port; default a free one. */
  port?: number;
  /** Last-word overrides of the oidc-provider configuration. */
  config?: Record<string, unknown>;
}

/** Options for {@link OidcProviderHarness.login}. */
export interface LoginOptions {
  /** Answer a consent page by granting (default true) or by pressing Cancel (`error=access_denied`). */
  consent?: boolean;
  /** Press Cancel on the login page instead of signing in (`error=access_denied`). */
  cancel?: boolean;
  /** The user agent's jar at the OP; pass the same jar to keep the OP session (single sign-on) across logins. */
  cookies?: CookieJar;
}

/** A running OP. */
export interface OidcProviderHarness {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  issuer: string;
  port: number;
  provider: Provider;
  /** The first client's credentials and redirect URI (the default client unless `clients` was given). */
  clientId: string;
  clientSecret: string | undefined;
  redirectUri: string;
  accounts: Readonly<Record<string, AccountClaims>>;
  /**
   * Plays the user at the OP: follows `authorizationUrl` through the login (and, if shown, consent) pages as
   * `accountId`, and returns where the browser goes next: the callback URL with `code`, `state` and `iss` (GET),
   * or, for `response_mode=form_post`, the auto-submitted form (POST with `form`). OP errors that redirect back
   * (e.g. `error=invalid_scope`) come back the same way; errors the OP renders itself throw.
   */
  login(authorizationUrl: string | URL, accountId: string, options?: LoginOptions): Promise<Navigation>;
  /** A user-info URL for plain OAuth 2 (token without `openid`): `Bearer` token -> `{ sub, name, email }` or 401. */
  userinfoEndpoint(): string;
  /** How many requests the OP has received at `path` (its pathname, e.g. `/jwks`), whoever sent them. */
  requestsTo(path: string): number;
  stop(): Promise<void>;
}

// oidc-provider announces itself on the console (Node 20 "unsupported runtime", in-memory adapter, dev
// interactions); those lines say nothing about the test, so they are dropped process-wide, and only those.
let consoleFiltered = false;
function filterProviderNoise(): void {
  if (consoleFiltered) return;
  consoleFiltered = true;
  const noisy = (args: unknown[]) => typeof args[0] === 'string' && /oidc-provider (NOTICE|WARNING):/.test(args[0]);
  for (const level of ['info', 'warn', 'log'] as const) {
    const original = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      if (!noisy(args)) original(...args);
    };
  }
}

let providerModule: Promise<typeof import('oidc-provider')> | undefined;
function loadProvider(): Promise<typeof import('oidc-provider')> {
  filterProviderNoise();
  // Imported lazily so the console filter is in place before the module's import-time warning.
  providerModule ??= import('oidc-provider');
  return providerModule;
}

// One RSA-2048 key per process: generating it costs up to ~300 ms on a small machine, and tests never need two.
let signingKey: Promise<Record<string, unknown>> | undefined;
/** The OP's private signing key (JWK, with kid and alg): tests forge tokens with it that only a claim check can refuse. */
export function rsaSigningKey(): Promise<Record<string, unknown>> {
  signingKey ??= promisify(generateKeyPair)('rsa', { modulusLength: 2048 }).then(({ privateKey }) => ({
    ...privateKey.export({ format: 'jwk' }),
    kid: `test-${randomUUID()}`,
    use: 'sig',
    alg: 'RS256',
  }));
  return signingKey;
}

// Approves whatever the client asks for, so the flow needs only the login page (test-peers.md §1 "skip consent").
async function approveEverything(ctx: KoaContextWithOIDC) {
  const { oidc } = ctx;
  const grantId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId);
  const grant =
    (grantId ? await oidc.provider.Grant.find(grantId) : undefined) ??
    new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
  grant.addOIDCScope([...oidc.requestParamOIDCScopes].join(' '));
  grant.addOIDCClaims([...oidc.requestParamClaims]);
  for (const [indicator, server] of Object.entries(oidc.resourceServers ?? {})) {
    const scopes = [...oidc.requestParamScopes].filter((scope) => server.scopes.has(scope));
    if (scopes.length > 0) grant.addResourceScope(indicator, scopes.join(' '));
  }
  await grant.save();
  return grant;
}

function profileClaimNames(accounts: Record<string, AccountClaims>): string[] {
  const names = new Set(['name']);
  for (const claims of Object.values(accounts)) {
    for (const key of Object.keys(claims)) if (!['sub', 'email', 'email_verified'].includes(key)) names.add(key);
  }
  return [...names];
}

/**
 * Starts oidc-provider on 127.0.0.1 with a confidential client (client_secret_basic, PKCE required), accounts
 * alice and bob, RS256 ID tokens and introspection enabled.
 *
 * Frozen clocks: everything time-based here reads `Date`, so freezing only `Date` (`vi.useFakeTimers({ toFake:
 * ['Date'] })`) moves OP, client and jar together; do not fake `setTimeout`, the HTTP stack needs it.
 *
 * Plain OAuth 2 (no OpenID Connect): configure the app's provider with `scope: 'api:read'` (listed in `scopes`),
 * no nonce and no ID token, the OP's authorization and token endpoints, and `userinfoEndpoint()` as its user-info
 * URL. The OP's own `/me` refuses a token without `openid` (403 insufficient_scope), hence that endpoint: it
 * introspects the bearer token at the OP and answers the account's `{ sub, name, email }`.
 *
 * @example
 * const op = await startOidcProvider({ redirectUris: ['http://localhost:3000/auth/callback/oidc'] });
 * const next = await op.login(authorizationUrl, 'alice'); // { url: '...callback/oidc?code=...', method: 'GET' }
 * await op.stop();
 */
export async function startOidcProvider(options: OidcProviderOptions = {}): Promise<OidcProviderHarness> {
  const [{ default: ProviderClass }, jwk] = await Promise.all([loadProvider(), rsaSigningKey()]);
  const accounts = options.accounts ?? DEFAULT_ACCOUNTS;
  const clients: ClientMetadata[] = options.clients ?? [
    {
      client_id: DEFAULT_CLIENT_ID,
      client_secret: DEFAULT_CLIENT_SECRET,
      redirect_uris: options.redirectUris ?? [DEFAULT_REDIRECT_URI],
      response_types: ['code'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ];
  const [firstClient] = clients;
  if (!firstClient) throw new Error('startOidcProvider: `clients` must not be empty');

  // The issuer contains the port, so listen first and hand requests to the provider once it exists.
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const received = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    received.set(path, (received.get(path) ?? 0) + 1);
    if (handle) handle(req, res);
    else res.writeHead(503).end();
  });
  const port = await listenLoopback(server, options.port);
  const issuer = `http://127.0.0.1:${port}`;

  const ttl = options.accessTokenTtl ?? 3600;
  const { features: extraFeatures = {} } = options;
  const features: Record<string, Record<string, unknown>> = {
    devInteractions: { enabled: true },
    introspection: { enabled: true, allowedPolicy: async () => true },
  };
  for (const [name, value] of Object.entries(extraFeatures)) features[name] = { ...features[name], ...value };

  const provider = new ProviderClass(issuer, {
    clients: [
      ...clients,
      {
        client_id: RESOURCE_CLIENT_ID,
        client_secret: RESOURCE_CLIENT_SECRET,
        redirect_uris: [],
        response_types: [],
        grant_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    findAccount: async (_ctx: unknown, id: string) => {
      const claims = accounts[id];
      if (!claims) return undefined;
      return { accountId: id, claims: async () => ({ ...claims, sub: id }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: profileClaimNames(accounts) },
    scopes: ['openid', 'offline_access', 'email', 'profile', ...(options.scopes ?? [])],
    pkce: { required: () => options.pkceRequired ?? true },
    features,
    ...(options.skipConsent ?? true ? { loadExistingGrant: approveEverything } : {}),
    // Explicit lifetimes: no "default ttl" notices, and a test can shorten the ones it exercises.
    ttl: {
      AccessToken: ttl,
      AuthorizationCode: 600,
      ClientCredentials: ttl,
      IdToken: options.idTokenTtl ?? 3600,
      Interaction: 3600,
      Session: 86_400,
      Grant: 86_400,
      RefreshToken: 86_400,
    },
    clockTolerance: options.clockTolerance ?? 0,
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    jwks: { keys: [jwk] },
    // A plain error page that tests can read when login() throws.
    renderError: async (ctx: KoaContextWithOIDC, out: Record<string, unknown>) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>OP error</title><pre>${JSON.stringify(out).replace(/</g, '&lt;')}</pre>`;
    },
    clientBasedCORS: () => true,
    // Put the scopes' claims in the ID token too, as most real providers do (OIDC clients read the profile there).
    conformIdTokenClaims: false,
    ...options.config,
  });

  const userinfo = async (req: IncomingMessage, res: ServerResponse) => {
    const unauthorized = (error: string) =>
      res
        .writeHead(401, { 'www-authenticate': `Bearer error="${error}"`, 'content-type': 'application/json' })
        .end(JSON.stringify({ error }));
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return unauthorized('invalid_request');
    const answer = await fetch(`${issuer}/token/introspection`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${RESOURCE_CLIENT_ID}:${RESOURCE_CLIENT_SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token }),
    });
    const introspection = (await answer.json()) as { active?: boolean; sub?: string };
    const claims = introspection.active && introspection.sub ? accounts[introspection.sub] : undefined;
    if (!introspection.sub || !claims) return unauthorized('invalid_token');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ sub: introspection.sub, name: claims.name, email: claims.email }));
  };
  handle = ((callback) => (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.split('?')[0] === USERINFO_PATH) {
      userinfo(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
    } else callback(req, res);
  })(provider.callback());

  const redirectUris = (firstClient.redirect_uris as string[] | undefined) ?? [];
  return {
    issuer,
    port,
    provider,
    clientId: firstClient.client_id,
    clientSecret: firstClient.client_secret,
    redirectUri: redirectUris[0] ?? '',
    accounts,
    login(authorizationUrl, accountId, loginOptions) {
      // The OP would only answer a bare server_error for an unknown account; say what went wrong instead.
      if (!Object.hasOwn(accounts, accountId)) {
        return Promise.reject(new Error(`login(): no account "${accountId}" (known: ${Object.keys(accounts).join(', ')})`));
      }
      return playUser(issuer, new URL(authorizationUrl), accountId, loginOptions);
    },
    userinfoEndpoint: () => `${issuer}${USERINFO_PATH}`,
    requestsTo: (path) => received.get(path) ?? 0,
    stop: () => closeHttpServer(server),
  };
}

// Walks the OP's dev pages like a user: login form, optional consent form, until the browser would leave the OP.
async function playUser(issuer: string, start: URL, accountId: string, options: LoginOptions = {}): Promise<Navigation> {
  const op = new URL(issuer).origin;
  const agent = createClient({ baseUrl: issuer, cookies: options.cookies });
  let res: ClientResponse = await agent.get(start);
  for (let hop = 0; hop < 20; hop += 1) {
    if (res.status >= 300 && res.status < 400 && res.location) {
      if (res.location.origin !== op) return { url: res.location.href, method: 'GET' };
      res = await agent.get(res.location);
      continue;
    }
    const html = await res.text();
    const forms = readForms(html);
    const leaving = forms.find((form) => form.method === 'POST' && URL.canParse(form.action) && new URL(form.action).origin !== op);
    if (leaving) return { url: leaving.action, method: 'POST', form: leaving.fields };

    const interaction = forms.find((form) => form.fields.prompt === 'login' || form.fields.prompt === 'consent');
    if (res.status === 200 && interaction) {
      const prompt = interaction.fields.prompt;
      const cancel = prompt === 'login' ? options.cancel === true : options.consent === false;
      if (cancel) {
        const abort = readLinks(html).find((href) => href.endsWith('/abort'));
        if (!abort) throw new Error(`login(): no Cancel link on the ${prompt} page at ${res.requestUrl.href}`);
        res = await agent.get(new URL(abort, res.requestUrl));
      } else {
        const answer: Record<string, string> = prompt === 'login' ? { prompt, login: accountId, password: 'any-password' } : { prompt };
        res = await agent.post(new URL(interaction.action, res.requestUrl), answer);
      }
      continue;
    }
    throw new Error(`login(): the OP answered ${res.status} at ${res.requestUrl.href}: ${html.slice(0, 500)}`);
  }
  throw new Error('login(): more than 20 hops at the OP');
}
