// RP-initiated logout over HTTP: at sign-out, run the rpLogout machine for the first opted-in provider the user has
// an ID token from; a paused machine is sealed into a short-lived cookie and the browser goes to the provider.
// GET {basePath}/signout-callback/:provider resumes it with the returned state.
import { InvalidCheck } from '../../core/errors.js';
import { clearCookie, setCookie } from '../../core/request-context.js';
import type { ResolvedProvider } from '../../core/provider.js';
import { RP_LOGOUT_TTL_MS, rpLogoutMachine } from '../../flows/logout/rp-machine.js';
import { oauthProviderFor } from '../../flows/oauth/steps.js';
import type { FlowDeps } from '../../flows/runtime/contract.js';
import { settleOwnMachine, type PausedFlow } from '../../flows/runtime/run.js';
import { decryptJwe, encryptJwe } from '../../session/jwe.js';
import { deriveSessionKey } from '../../session/keys.js';
import { signedInUserId } from '../../session/gate.js';
import type { AuthRequest } from '../request.js';
import { redirect } from '../response.js';

interface SealedLogout {
  provider: string;
  paused: PausedFlow;
  exp: number;
}

const cookieName = (req: AuthRequest) => req.cookieOptions.callbackUrl.name.replace(/callback-url$/, 'provider-logout');
const enc = new TextEncoder();

function seal(req: AuthRequest, value: SealedLogout): string {
  const { key, kid } = deriveSessionKey(req.config.secrets[0]!, cookieName(req));
  return encryptJwe(enc.encode(JSON.stringify(value)), key, { kid });
}

function open(req: AuthRequest, sealed: string | undefined): SealedLogout | undefined {
  if (!sealed) return undefined;
  try {
    const keys = req.config.secrets.map((s) => deriveSessionKey(s, cookieName(req)));
    const { plaintext } = decryptJwe(sealed, (h) => keys.find((k) => k.kid === h.kid)?.key);
    const value = JSON.parse(new TextDecoder().decode(plaintext)) as SealedLogout;
    return value && typeof value.provider === 'string' && typeof value.exp === 'number' && value.paused ? value : undefined;
  } catch {
    return undefined;
  }
}

const depsFor = (req: AuthRequest, provider: ResolvedProvider, userId: string) => ({ req, provider: oauthProviderFor({ req, provider, callbackUrl: '' } as FlowDeps), userId });

/**
 * Where to send the browser to end the provider session of the signed-in user, or undefined (no opted-in provider,
 * nobody signed in, no ID token, no end_session_endpoint). Call before the local session is ended.
 */
export async function startProviderLogout(req: AuthRequest, callbackUrl: string): Promise<string | undefined> {
  const opted = req.config.providers.filter((p) => p.rpInitiatedLogout === true && (p.type === 'oidc' || p.type === 'oauth'));
  if (opted.length === 0) return undefined;
  const userId = await signedInUserId(req);
  if (!userId) return undefined;
  for (const provider of opted) {
    const settled = await settleOwnMachine(provider.id, rpLogoutMachine, { deps: depsFor(req, provider, userId), callbackUrl, startedAt: Date.now() }, { type: 'SIGN_OUT' }, undefined, [], []);
    if (settled.kind === 'paused' && settled.response.kind === 'redirect') {
      const { options } = req.cookieOptions.callbackUrl;
      setCookie(req, { name: cookieName(req), value: seal(req, { provider: provider.id, paused: settled.paused, exp: Date.now() + RP_LOGOUT_TTL_MS }), options: { ...options, maxAge: RP_LOGOUT_TTL_MS / 1000 } });
      return settled.response.url;
    }
    if (settled.kind === 'done') {
      const failure = (settled.context as { failure?: { err?: unknown } }).failure;
      if (failure?.err instanceof Error) req.config.logger.error(failure.err);
    }
  }
  return undefined;
}

/** GET {basePath}/signout-callback/:provider: the provider sent the browser back; the state must match. */
export async function providerLogoutReturn(req: AuthRequest, providerId: string): Promise<Response> {
  const sealed = open(req, req.cookies[cookieName(req)]);
  clearCookie(req, cookieName(req), req.cookieOptions.callbackUrl.options);
  if (!sealed || sealed.provider !== providerId || sealed.exp < Date.now()) {
    throw new InvalidCheck('No provider sign-out of this provider is pending in this browser.', { expected: providerId, actual: sealed?.provider ?? null });
  }
  const provider = req.config.providers.find((p) => p.id === providerId)!;
  const state = typeof req.query.state === 'string' ? req.query.state : undefined;
  const settled = await settleOwnMachine(provider.id, rpLogoutMachine, { deps: depsFor(req, provider, '') }, { type: 'RETURN', state, now: Date.now() } as never, sealed.paused, [], []);
  if (settled.kind === 'done') return redirect(req, (settled.output as { url: string }).url);
  throw settled.kind === 'failed' ? settled.error : new InvalidCheck('The provider sign-out did not finish.');
}
