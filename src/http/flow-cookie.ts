// The flow cookie: a paused machine (state value + context) sealed as a JWE, bound to the provider,
// the machine id and the machine version, and expiring after 15 minutes.
import { InvalidCheck } from '../core/errors.js';
import type { FlowDefinition } from '../machines/contract.js';
import type { PausedFlow } from '../machines/runtime.js';
import { encryptJwe } from '../session/jwe.js';
import { decodeSync } from '../session/jwt.js';
import { deriveSessionKey } from '../session/keys.js';
import type { AuthRequest } from './request.js';
import { clearCookie, setCookie } from './response.js';

export const FLOW_MAX_AGE = 15 * 60;

interface FlowClaims {
  /** provider id */
  p: string;
  /** machine id */
  m: string;
  /** machine version */
  v: number;
  /** state value */
  s: PausedFlow['value'];
  /** context */
  c: PausedFlow['context'];
}

export interface SealFlowOptions {
  /** The browser returns by a cross-site POST (`form_post`), which carries only `SameSite=None; Secure` cookies. */
  crossSitePost?: boolean;
}

/**
 * Seals a paused flow into the flow cookie. Unlike a session token it carries no `kid`, `iat` or `jti`: it
 * lives minutes, is opened once, and a keyless token is tried against each secret in order, so rotation still
 * works. That keeps an OIDC flow (PKCE, state and nonce) well under 1,200 bytes.
 */
export function sealFlow(req: AuthRequest, providerId: string, flow: FlowDefinition, paused: PausedFlow, seal: SealFlowOptions = {}): void {
  const { name, options } = req.cookieOptions.flow;
  const claims: FlowClaims & { exp: number } = {
    p: providerId,
    m: flow.machine.id,
    v: flow.version,
    s: paused.value,
    c: paused.context,
    exp: Math.floor(Date.now() / 1000) + FLOW_MAX_AGE,
  };
  const { key } = deriveSessionKey(req.config.secrets[0], name);
  const value = encryptJwe(Buffer.from(JSON.stringify(claims), 'utf8'), key);
  // `Secure` is what browsers demand of `SameSite=None`; they accept it on http://localhost too.
  const crossSite = seal.crossSitePost ? { sameSite: 'none' as const, secure: true } : {};
  setCookie(req, { name, value, options: { ...options, maxAge: FLOW_MAX_AGE, ...crossSite } });
}

/** Opens and checks the flow cookie for this provider and flow; throws InvalidCheck with the reason. */
export function openFlow(req: AuthRequest, providerId: string, flow: FlowDefinition): PausedFlow {
  const { name } = req.cookieOptions.flow;
  const raw = req.cookies[name];
  if (!raw) throw new InvalidCheck('The flow cookie is missing (expired, or the sign-in started in another browser).', { expected: 'flow cookie', actual: null });
  let claims: FlowClaims;
  try {
    claims = decodeSync({ token: raw, secret: req.config.secrets, salt: name }) as unknown as FlowClaims;
  } catch (err) {
    throw new InvalidCheck('The flow cookie could not be opened (tampered or expired).', { err: err as Error });
  }
  if (!claims || typeof claims !== 'object') throw new InvalidCheck('The flow cookie is empty.');
  if (claims.p !== providerId) throw new InvalidCheck('The flow cookie belongs to another provider.', { expected: providerId, actual: claims.p });
  if (claims.m !== flow.machine.id || claims.v !== flow.version) {
    throw new InvalidCheck('The flow cookie was made by another version of this flow.', { expected: `${flow.machine.id}@${flow.version}`, actual: `${claims.m}@${claims.v}` });
  }
  if (!claims.c || typeof claims.c !== 'object') throw new InvalidCheck('The flow cookie has no context.');
  return { value: claims.s, context: claims.c };
}

export function clearFlow(req: AuthRequest): void {
  const { name, options } = req.cookieOptions.flow;
  if (req.cookies[name] !== undefined) clearCookie(req, name, options);
}
