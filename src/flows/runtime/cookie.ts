// The flow cookies: a paused machine (state value + context, and the runtime's typed pause beside it) sealed as a
// JWE, bound to its slot, the machine id and the machine version, and expiring after 15 minutes. One API for every
// paused machine, by slot: each provider's flow has its own cookie (`<flow cookie name>.<provider id>`), so one
// provider's flow never replaces or clears another's paused flow (a WebAuthn conditional-UI options request on every
// sign-in page view must not spoil an OAuth flow in another tab); the second-factor stage has one per browser
// (`<flow cookie name>-second-factor`, a name no provider id can produce), each signed-in flow one
// (`<flow cookie name>-signed-in.<flow id>`), each account flow (sign-up) one per provider
// (`<flow cookie name>-account.<flow id>.<provider id>`), and a provider logout one. The name is also the key-derivation salt, so
// a value sealed for one slot cannot be opened as another's.
// A browser holds only a few of them (MAX_STARTED_FLOWS): sign-in starts at many providers must not outgrow the
// servers' header limits (a 16 KB Cookie header is answered 431 until the cookies expire).
import { InvalidCheck } from '../../core/errors.js';
import { isOutage } from '../../core/store-deadline.js';
import type { StateValue } from 'xstate';
import type { Account, AuthMethod, Profile, User } from '../../core/types.js';
import type { FlowResponse } from './contract.js';
import { encryptJwe } from '../../session/jwe.js';
import { decodeSync } from '../../session/jwt.js';
import { deriveSessionKey } from '../../session/keys.js';
import { clearCookie, setCookie, type RequestContext as AuthRequest } from '../../core/request-context.js';
import type { CookieOption } from '../../core/cookies.js';

export const FLOW_MAX_AGE = 15 * 60;

/** What a sign-in paused at the second-factor stage carries to the session it will issue. */
export interface PendingSignIn {
  providerId: string;
  user: User;
  account: Account;
  profile?: Profile;
  isNewUser: boolean;
  redirect: string;
  /** The first factor's methods as the flow claimed them (`amr` in its output); absent: by the account's kind. */
  amr?: AuthMethod[];
}

/** A built-in page a paused flow shows, kept small enough to ride in the cookie (`GET {basePath}/flow/:slot`). */
export type PausedPage = Extract<FlowResponse, { kind: 'page' }>;

/**
 * What the runtime keeps beside a paused machine, and nothing else: typed, checked when opened, written by the
 * runtime alone.
 */
export interface Pause {
  /** The proven sign-in a second-factor check is for (the stage slot only). */
  signIn?: PendingSignIn;
  /** The signed-in user a provider's flow was started for by `POST link/:provider`: what it proves is linked to them. */
  link?: string;
  /** The signed-in user a signed-in flow belongs to: it resumes only from a live session of that user. */
  owner?: string;
  /** The page the paused flow shows, for `GET {basePath}/flow/:slot`. */
  page?: PausedPage;
}

/** A paused machine as the flow cookie carries it: which machine, its state value, its context (no deps), the pause. */
export interface PausedFlow {
  machine: string;
  value: StateValue;
  context: Record<string, unknown>;
  pause?: Pause;
}

/** What a slot checks a cookie against: the machine and the version of the flow, stage or job it holds. */
export interface Versioned {
  machine: { id: string };
  version: number;
}

/**
 * How many sign-ins a user started (OAuth, e-mail, custom flows: every kind but WebAuthn) one browser keeps
 * paused at once. Sealing one more clears the oldest of the others. At ~1.2 KB per OIDC flow this keeps the
 * flow cookies near 4 KB, and three sign-ins left half-way in three tabs still all complete.
 */
export const MAX_STARTED_FLOWS = 3;

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
  /** the runtime's pause */
  x?: Pause;
}

/**
 * Where a paused machine is sealed: a provider's flow, the second-factor stage, a signed-in flow (by its id), or a
 * provider's RP-initiated logout (by provider id).
 */
export type FlowSlot = { provider: string } | { stage: 'second-factor' } | { signedIn: string } | { account: AccountSlot } | { logout: string };

/** An account flow's slot: the flow (`signup`) and the provider it runs for, each `[A-Za-z0-9_-]+`. */
export interface AccountSlot {
  flow: string;
  provider: string;
}

/** How long a provider logout waits for the browser to come back: as long as the logout machine itself waits. */
export const LOGOUT_MAX_AGE = 15 * 60;

/** The configured flow cookie of a provider's kind: OAuth/OIDC (`pkceCodeVerifier`...), WebAuthn, or any other. */
function flowCookieOf(req: AuthRequest, providerId: string): CookieOption {
  const type = req.config.providersById.get(providerId)?.type;
  if (type === 'oauth' || type === 'oidc') return req.cookieOptions.oauthFlow;
  if (type === 'webauthn') return req.cookieOptions.webauthnFlow;
  return req.cookieOptions.flow;
}

/**
 * The flow cookie of one provider: the configured flow cookie name of its kind (prefixes such as `__Secure-` carry
 * over) suffixed with the provider id, which config validation restricts to `[A-Za-z0-9_-]+`. Also the salt of its key.
 */
export function flowCookieName(req: AuthRequest, providerId: string): string {
  return `${flowCookieOf(req, providerId).name}.${providerId}`;
}

export interface SealFlowOptions {
  /** The browser returns by a cross-site POST (`form_post`), which carries only `SameSite=None; Secure` cookies. */
  crossSitePost?: boolean;
}

/** A slot's cookie: its name (the key-derivation salt too), attributes, and the value its claims are bound to. */
function slotCookie(req: AuthRequest, slot: FlowSlot): { name: string; options: CookieOption['options']; bind: string; maxAge: number } {
  const flow = req.cookieOptions.flow;
  if ('provider' in slot) return { name: flowCookieName(req, slot.provider), options: flowCookieOf(req, slot.provider).options, bind: slot.provider, maxAge: FLOW_MAX_AGE };
  if ('stage' in slot) return { name: `${flow.name}-${slot.stage}`, options: flow.options, bind: slot.stage, maxAge: FLOW_MAX_AGE };
  if ('signedIn' in slot) return { name: `${flow.name}-signed-in.${slot.signedIn}`, options: flow.options, bind: `signed-in:${slot.signedIn}`, maxAge: FLOW_MAX_AGE };
  if ('account' in slot) {
    const { flow: id, provider } = slot.account;
    return { name: `${flow.name}-account.${id}.${provider}`, options: flow.options, bind: `account:${id}:${provider}`, maxAge: FLOW_MAX_AGE };
  }
  // One provider logout per browser, under the name it always had; the provider it is for is the bind claim.
  const name = req.cookieOptions.callbackUrl.name.replace(/callback-url$/, 'provider-logout');
  return { name, options: req.cookieOptions.callbackUrl.options, bind: `logout:${slot.logout}`, maxAge: LOGOUT_MAX_AGE };
}

/** The name of a slot's cookie. */
export function slotCookieName(req: AuthRequest, slot: FlowSlot): string {
  return slotCookie(req, slot).name;
}

/**
 * Seals a paused machine into its slot's cookie. Unlike a session token it carries no `kid`, `iat` or `jti`: it
 * lives minutes, is opened once, and a keyless token is tried against each secret in order, so rotation still
 * works. That keeps an OIDC flow (PKCE, state and nonce) well under 1,200 bytes. A newer one replaces the slot's
 * earlier one; sealing a provider's flow first clears the oldest of too many started sign-ins.
 */
export function sealFlow(req: AuthRequest, slot: FlowSlot, flow: Versioned, paused: PausedFlow, seal: SealFlowOptions = {}): void {
  if ('provider' in slot) evictOldestFlows(req, slot.provider);
  const { name, options, bind, maxAge } = slotCookie(req, slot);
  const claims: FlowClaims & { exp: number } = {
    p: bind,
    m: paused.machine,
    v: flow.version,
    s: paused.value,
    c: paused.context,
    ...(paused.pause && Object.keys(paused.pause).length > 0 ? { x: paused.pause } : {}),
    exp: Math.floor(Date.now() / 1000) + maxAge,
  };
  const { key } = deriveSessionKey(req.config.secrets[0], name);
  const value = encryptJwe(Buffer.from(JSON.stringify(claims), 'utf8'), key);
  // `Secure` is what browsers demand of `SameSite=None`; they accept it on http://localhost too.
  const crossSite = seal.crossSitePost ? { sameSite: 'none' as const, secure: true } : {};
  setCookie(req, { name, value, options: { ...options, maxAge, ...crossSite } });
}

/**
 * Opens and checks a slot's cookie for this flow; throws InvalidCheck with the reason. The bind claim is still
 * checked (defence in depth), though a value sealed for another slot fails to open first.
 */
export function openFlow(req: AuthRequest, slot: FlowSlot, flow: Versioned): PausedFlow {
  const { name, bind } = slotCookie(req, slot);
  const raw = req.cookies[name];
  if (!raw) throw new InvalidCheck('The flow cookie is missing (expired, or the sign-in started in another browser).', { expected: 'flow cookie', actual: null });
  let claims: FlowClaims;
  try {
    claims = decodeSync({ token: raw, secret: req.config.secrets, salt: name }) as unknown as FlowClaims;
  } catch (err) {
    throw new InvalidCheck('The flow cookie could not be opened (tampered or expired).', { err: err as Error });
  }
  if (!claims || typeof claims !== 'object') throw new InvalidCheck('The flow cookie is empty.');
  if (claims.p !== bind) throw new InvalidCheck('The flow cookie belongs to another provider.', { expected: bind, actual: claims.p });
  if (claims.m !== flow.machine.id || claims.v !== flow.version) {
    throw new InvalidCheck('The flow cookie was made by another version of this flow.', { expected: `${flow.machine.id}@${flow.version}`, actual: `${claims.m}@${claims.v}` });
  }
  if (!claims.c || typeof claims.c !== 'object') throw new InvalidCheck('The flow cookie has no context.');
  const pause = claims.x === undefined ? undefined : pauseOf(claims.x);
  return { machine: claims.m, value: claims.s, context: claims.c, ...(pause ? { pause } : {}) };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.length <= 255;

/**
 * The pause sealed beside a machine, each part checked for its shape (a sealed cookie is still input from a browser,
 * and may come from an older build): a part of another shape is an InvalidCheck, never taken on trust.
 */
function pauseOf(x: unknown): Pause {
  if (!isObject(x)) throw new InvalidCheck('The flow cookie holds a pause of another shape.');
  const pause: Pause = {};
  const { signIn, link, owner, page } = x;
  if (signIn !== undefined) {
    const p = signIn as Partial<PendingSignIn>;
    if (!isObject(signIn) || !isId(p.providerId) || typeof p.redirect !== 'string' || !isObject(p.user) || !isObject(p.account)) {
      throw new InvalidCheck('The flow cookie holds a pending sign-in of another shape.');
    }
    pause.signIn = signIn as unknown as PendingSignIn;
  }
  if (link !== undefined) {
    if (!isId(link)) throw new InvalidCheck('The flow cookie holds a link of another shape.');
    pause.link = link;
  }
  if (owner !== undefined) {
    if (!isId(owner)) throw new InvalidCheck('The flow cookie holds an owner of another shape.');
    pause.owner = owner;
  }
  if (page !== undefined) {
    if (!isObject(page) || page.kind !== 'page') throw new InvalidCheck('The flow cookie holds a page of another shape.');
    pause.page = page as unknown as PausedPage;
  }
  return pause;
}

/** Clears a slot's cookie (if the browser sent one); other slots' paused machines are left alone. */
export function clearFlow(req: AuthRequest, slot: FlowSlot): void {
  const { name, options } = slotCookie(req, slot);
  if (req.cookies[name] !== undefined) clearCookie(req, name, options);
}

/** Undoes a queued {@link clearFlow} of `slot`: the browser keeps the paused flow it sent (a refused stray event). */
export function keepFlow(req: AuthRequest, slot: FlowSlot): void {
  const { name } = slotCookie(req, slot);
  req.setCookies = req.setCookies.filter((c) => c.name !== name);
}

/**
 * The expiry sealed inside a flow cookie (seconds), or -Infinity when it does not open (expired, tampered, or
 * sealed with a secret no longer configured). Read from the authenticated claims, never from anything a client
 * could set in the clear, so a planted cookie cannot make itself look younger than a real flow.
 */
function sealedExpiry(req: AuthRequest, name: string): number {
  try {
    const claims = decodeSync({ token: req.cookies[name], secret: req.config.secrets, salt: name }) as { exp?: unknown } | null;
    return typeof claims?.exp === 'number' ? claims.exp : -Infinity;
  } catch {
    return -Infinity;
  }
}

/**
 * Before `providerId`'s flow is sealed: clears the flow cookies of other started sign-ins beyond
 * MAX_STARTED_FLOWS - 1, those that no longer open first, then the oldest by sealed expiry (ties, within one
 * second, go in provider order). Only the cookies of this configuration's providers are counted or cleared, so
 * an attacker's made-up names cost no key derivation, and another app's flows on the same host are left alone.
 *
 * WebAuthn flows stand apart. The sign-in page asks for passkey options on every view (conditional UI), and that
 * request replaces its own cookie and never clears another: opening a sign-in page in one tab cannot spoil an
 * OAuth sign-in waiting in another. Nor does a sign-in start clear a WebAuthn cookie. They add at most one
 * cookie per WebAuthn provider, a number the configuration fixes.
 */
function evictOldestFlows(req: AuthRequest, providerId: string): void {
  if (req.config.providersById.get(providerId)?.type === 'webauthn') return;
  const held: { name: string; id: string }[] = [];
  for (const p of req.config.providers) {
    if (p.id === providerId || p.type === 'webauthn') continue;
    const name = flowCookieName(req, p.id);
    if (req.cookies[name] !== undefined) held.push({ name, id: p.id });
  }
  const surplus = held.length - (MAX_STARTED_FLOWS - 1);
  if (surplus <= 0) return;
  const byAge = held.map((h) => ({ ...h, exp: sealedExpiry(req, h.name) })).sort((a, b) => a.exp - b.exp);
  for (const { name, id } of byAge.slice(0, surplus)) clearCookie(req, name, flowCookieOf(req, id).options);
}

/** The public name of a slot in `GET {basePath}/flow/:slot`, and where its form posts (below basePath). */
export function slotNames(slot: FlowSlot): { slot: string; action: string } {
  if ('provider' in slot) return { slot: slot.provider, action: `callback/${encodeURIComponent(slot.provider)}` };
  if ('stage' in slot) return { slot: slot.stage, action: slot.stage };
  if ('signedIn' in slot) return { slot: `signed-in.${slot.signedIn}`, action: `flows/${encodeURIComponent(slot.signedIn)}` };
  if ('account' in slot) return { slot: `account.${slot.account.flow}.${slot.account.provider}`, action: `${slot.account.flow}/${encodeURIComponent(slot.account.provider)}` };
  return { slot: '', action: '' };
}

// The carried page rides in the flow cookie, and a browser drops a cookie above 4096 bytes, losing the flow with
// it. A page above this size in bytes (the enrolment page's QR code is ~3 kB) is not carried: its flow goes on as
// before, and `GET {basePath}/flow/:slot` answers that this flow shows no page.
const CARRIED_PAGE_LIMIT = 1024;
const utf8 = new TextEncoder();

/**
 * Seals a paused machine in `slot`, with the small page it shows kept beside it, and answers what it shows (the
 * door's `paused` answer).
 */
export function sealPaused(req: AuthRequest, slot: FlowSlot, flow: Versioned, paused: PausedFlow, response: FlowResponse): { status: 'paused'; response: FlowResponse; slot: string; action: string } {
  if (response.kind === 'page' && utf8.encode(JSON.stringify(response)).length <= CARRIED_PAGE_LIMIT) paused.pause = { ...paused.pause, page: response as PausedPage };
  sealFlow(req, slot, flow, paused, { crossSitePost: response.kind === 'redirect' && response.crossSitePost === true });
  return { status: 'paused', response, ...slotNames(slot) };
}

/**
 * The one rule for a slot after a run: a paused state is single-use, so whatever happened it is spent, except where
 * the run spent nothing. A refused event ran nothing; a fresh start that failed left the paused flow alone (a "send a
 * new code" refused by the cooldown keeps the first code); an outage rolled back (the browser can send the same
 * answer again). What pauses again is sealed anew by the door, in whichever slot it paused. Only this slot is touched:
 * another provider's paused flow (another tab) is left alone.
 *
 * @example
 * slotAfter(req, { provider: 'github' }, result, { resumed: entry.resume })
 */
export function slotAfter(req: AuthRequest, slot: FlowSlot, result: { status: string; error?: unknown }, run: { resumed: boolean }): void {
  if (!spentNothing(result, run.resumed)) clearFlow(req, slot);
}

/** Whether a run that ended this way left the paused state of its slot unspent. */
export function spentNothing(result: { status: string; error?: unknown }, resumed: boolean): boolean {
  if (result.status === 'refused') return true;
  return result.status === 'failed' && (!resumed || isOutage(result.error));
}
