// A development OpenID Provider on loopback (oidc-provider), so "Sign in with Demo IdP" works
// offline with no configuration. Any password is accepted; the login name picks the user. Its login page is the
// demo's own (idp-pages.ts): no stock screen, no web font, no debug panel, and one Cancel button.
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { handleInteraction } from './idp-pages.js';
import { faviconResponse } from './style.js';
import type { AddressInfo } from 'node:net';

interface DemoGrant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}

export interface DevIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

const users: Record<string, { name: string; email: string }> = {
  alice: { name: 'Alice Liddell', email: 'alice@demo-idp.test' },
  bob: { name: 'Bob Builder', email: 'bob@demo-idp.test' },
};

const CLIENT_ID = 'authchart-demo';

/**
 * The demo client's secret: random for one demo; derived from AUTH_SECRET when it is set, so several demo
 * instances started with one AUTH_SECRET (`npm run instances`) agree with the one IdP they share.
 */
export function demoIdpClientSecret(env: NodeJS.ProcessEnv): string {
  if (!env.AUTH_SECRET) return randomBytes(24).toString('base64url');
  return createHmac('sha256', env.AUTH_SECRET).update('authchart demo IdP client').digest('base64url');
}

/**
 * The IdP another process started (`DEMO_IDP_URL`), as this demo's client of it; nothing to close.
 *
 * @example
 * const idp = env.DEMO_IDP_URL ? sharedDevIdp(env.DEMO_IDP_URL, env) : await startDevIdp(port, [callback], secret)
 */
export function sharedDevIdp(issuer: string, env: NodeJS.ProcessEnv): DevIdp {
  return { issuer: issuer.replace(/\/$/, ''), clientId: CLIENT_ID, clientSecret: demoIdpClientSecret(env), close: async () => {} };
}

/** Starts the demo IdP on 127.0.0.1:`port`, with one client whose redirect URIs are `redirectUris`. */
export async function startDevIdp(port: number, redirectUris: string[], clientSecret: string): Promise<DevIdp> {
  // oidc-provider prints warnings about its development defaults; in this demo they are expected.
  const { warn, info, log } = console;
  const quiet = (write: (...a: unknown[]) => void) => (...args: unknown[]) => {
    if (!String(args[0]).startsWith('oidc-provider')) write(...args);
  };
  console.warn = quiet(warn);
  console.info = quiet(info);
  console.log = quiet(log);
  const { default: Provider } = await import('oidc-provider');
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = CLIENT_ID;
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, response_types: ['code'], grant_types: ['authorization_code'] }],
    findAccount: async (_ctx: unknown, id: string) => {
      const known = users[id.toLowerCase()] ?? { name: id, email: `${id.toLowerCase().replace(/[^a-z0-9._-]/g, '')}@demo-idp.test` };
      return { accountId: id.toLowerCase(), claims: async () => ({ sub: id.toLowerCase(), ...known, email_verified: true }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    // A first-party client: the demo's users are never asked to consent to it.
    loadExistingGrant: async (ctx: { oidc: { client?: { clientId: string }; session?: { accountId?: string }; provider: { Grant: new (o: object) => DemoGrant } } }) => {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId || !ctx.oidc.client) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    jwks: { keys: [{ ...jwk, kid: 'demo', use: 'sig', alg: 'RS256' }] },
    ttl: { AccessToken: 3600, AuthorizationCode: 600, IdToken: 3600, Interaction: 3600, Session: 86_400, Grant: 86_400 },
  });
  console.warn = warn;
  console.info = info;
  console.log = log;
  const callback = provider.callback();
  const server: Server = createServer((req, res) => {
    if (req.url === '/favicon.ico') {
      void faviconResponse().text().then((svg) => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(svg));
      return;
    }
    if (req.url?.startsWith('/interaction/')) {
      handleInteraction(provider as unknown as Parameters<typeof handleInteraction>[0], users, req, res).catch((err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err)));
      return;
    }
    callback(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    clientId,
    clientSecret,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
