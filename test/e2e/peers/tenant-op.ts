// A multi-tenant OpenID Provider shaped like Microsoft Entra ID's `common` endpoint, on 127.0.0.1: its discovery
// document names `{tenantid}` in the issuer, and every ID token carries the issuer and `tid` of the user's own
// tenant. No real Entra can run in a test; oidc-provider cannot publish a templated issuer. This serves only the
// code flow (PKCE S256, nonce), signs with a fresh RSA key, and lets a test rewrite the claims it mints.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { closeHttpServer, listenLoopback } from './net.js';

export interface TenantUser {
  sub: string;
  tid: string;
  email: string;
  name: string;
}

export interface TenantOp {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** What an app configures: `<origin>/common/v2.0`. */
  commonIssuer: string;
  /** `<origin>/consumers/v2.0`, whose document names the one tenant of personal accounts ({@link CONSUMERS_TENANT}). */
  consumersIssuer: string;
  /** The issuer of one tenant: `<origin>/<tid>/v2.0`. */
  issuerOf(tid: string): string;
  /** Who the next authorization request signs in as. */
  user: TenantUser;
  /** Rewrites the claims of the next ID tokens (reset to the identity by `reset`). */
  mint: (claims: Record<string, unknown>) => Record<string, unknown>;
  /** Rewrites the signed ID token, as an attacker in the middle would (reset by `reset`). */
  afterSign: (jwt: string) => string;
  reset(): void;
  stop(): Promise<void>;
}

interface PendingCode {
  user: TenantUser;
  clientId: string;
  redirectUri: string;
  nonce?: string;
  challenge?: string;
}

/** The tenant Entra ID's `consumers` endpoint names as its issuer. */
export const CONSUMERS_TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad';

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** client_secret_basic (RFC 6749 §2.3.1): both halves are form-urlencoded before base64. */
function authenticates(header: string | undefined, client: { id: string; secret: string }): boolean {
  const encoded = /^Basic (\S+)$/.exec(header ?? '')?.[1];
  if (!encoded) return false;
  const [id, secret] = Buffer.from(encoded, 'base64').toString('utf8').split(':').map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
  return id === client.id && secret === client.secret;
}

/** Starts the OP for one confidential client. */
export async function startTenantOp(client: { id: string; secret: string }, firstUser: TenantUser): Promise<TenantOp> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, PendingCode>();
  let handle: (req: IncomingMessage, res: ServerResponse) => Promise<unknown> = async () => undefined;
  const server = createServer((req, res) => void handle(req, res).catch((err: unknown) => json(res, 500, { error: 'server_error', error_description: String(err) })));
  const origin = `http://127.0.0.1:${await listenLoopback(server)}`;
  const base = `${origin}/common`;

  const op: TenantOp = {
    origin,
    commonIssuer: `${base}/v2.0`,
    consumersIssuer: `${origin}/consumers/v2.0`,
    issuerOf: (tid) => `${origin}/${tid}/v2.0`,
    user: firstUser,
    mint: (claims) => claims,
    afterSign: (jwt) => jwt,
    reset() {
      op.mint = (claims) => claims;
      op.afterSign = (jwt) => jwt;
    },
    stop: () => closeHttpServer(server),
  };

  handle = async (req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const documentOf = /^\/(common|consumers)\/v2\.0\/\.well-known\/openid-configuration$/.exec(url.pathname)?.[1];
    if (documentOf) {
      return json(res, 200, {
        issuer: documentOf === 'common' ? `${origin}/{tenantid}/v2.0` : op.issuerOf(CONSUMERS_TENANT),
        authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
        token_endpoint: `${base}/oauth2/v2.0/token`,
        jwks_uri: `${base}/discovery/v2.0/keys`,
        response_types_supported: ['code'],
        subject_types_supported: ['pairwise'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (url.pathname === '/common/discovery/v2.0/keys') return json(res, 200, { keys: [jwk] });
    if (url.pathname === '/common/oauth2/v2.0/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== client.id || q.get('response_type') !== 'code') return json(res, 400, { error: 'invalid_request' });
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { user: op.user, clientId: client.id, redirectUri: q.get('redirect_uri')!, nonce: q.get('nonce') ?? undefined, challenge: q.get('code_challenge') ?? undefined });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      if (q.get('state')) back.searchParams.set('state', q.get('state')!);
      return void res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/common/oauth2/v2.0/token' && req.method === 'POST') {
      const form = await formOf(req);
      if (!authenticates(req.headers.authorization, client)) return json(res, 401, { error: 'invalid_client' });
      const pending = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (!pending || pending.redirectUri !== form.get('redirect_uri') || createHash('sha256').update(verifier).digest('base64url') !== pending.challenge) {
        return json(res, 400, { error: 'invalid_grant' });
      }
      const { user } = pending;
      const claims = op.mint({ iss: op.issuerOf(user.tid), aud: client.id, sub: user.sub, tid: user.tid, email: user.email, name: user.name, nonce: pending.nonce });
      const idToken = op.afterSign(await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuedAt().setExpirationTime('10m').sign(privateKey));
      return json(res, 200, { access_token: randomBytes(16).toString('base64url'), token_type: 'Bearer', expires_in: 3600, id_token: idToken });
    }
    json(res, 404, { error: 'not_found' });
  };
  return op;
}
