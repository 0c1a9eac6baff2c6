// `{basePath}/account`, `/link/:provider` and `/unlink/:provider/:providerAccountId`: a signed-in user's own
// accounts. Link starts the provider's own flow bound to that user (the link stage adds the account when it comes
// back); unlink removes one linked account, never the last way to sign in. Both are CSRF-checked and need a recent
// sign-in, read through the session gate; a stale session goes through the factor check (or a new sign-in) first.
import { messagesFor } from '../core/messages/request.js';
import type { Translator } from '../core/messages/translator.js';
import { AccessDenied, InvalidProvider, publicErrorType } from '../core/errors.js';
import { dispatchEvent } from '../core/events.js';
import { noteActivity } from '../activity/run.js';
import { accountMethods, accountPasskeys } from '../flows/registry.js';
import { isPasswordProvider } from '../core/provider.js';
import { listSessions } from '../session/session-control.js';
import { keepsValidAfter } from '../session/valid-after.js';
import { sessionGate } from '../session/gate.js';
import { accountErrorUrl, accountUrl } from './account-url.js';
import { csrf, requireCsrf } from './csrf.js';
import { handleFlow, wantsJson } from './flow.js';
import { renderAccountPage, type AccountActivityRow, type AccountDeviceRow, type SessionControl } from './pages/account.js';
import { deviceName } from './pages/device-name.js';
import { pageNonce, type AuthRequest } from './request.js';
import { html, json, redirect, redirectsAsData } from './response.js';

/** How recent (seconds) a sign-in or factor check must be to link or unlink. */
export const LINK_MAX_AGE = 5 * 60;

/** Provider kinds whose accounts one links here: a password and an address are methods, not linked accounts. */
const LINKABLE = new Set(['oauth', 'oidc']);

/** Kinds one adds through `POST link/:provider` too, shown apart on the account page: passkeys. */
const ADDABLE = new Set([...LINKABLE, 'webauthn']);

/** Signed out: the sign-in page (coming back to the account page); stale: the factor check, else a new sign-in. */
export function notRecent(req: AuthRequest, reason: 'signedOut' | 'stale'): Response {
  // A client that reads redirects as data (the passkey script, next-auth's client) is told where to go instead.
  if (wantsJson(req) && !redirectsAsData(req)) return json(req, { error: reason === 'signedOut' ? 'Unauthorized' : 'RecentSignInRequired' }, reason === 'signedOut' ? 401 : 403, { noCache: true });
  const stepUp = reason === 'stale' && req.config.secondFactor;
  const url = new URL(stepUp ? `${req.config.basePath}/factors/verify` : req.config.pages.signIn ?? `${req.config.basePath}/signin`, req.origin);
  url.searchParams.set('callbackUrl', accountUrl(req));
  return redirect(req, url.href);
}

/** A refused action: JSON 403 with its public type, or back to the account page saying why. */
export function refused(req: AuthRequest, err: unknown): Response {
  req.config.logger.error(err instanceof Error ? err : new Error(String(err)));
  const type = publicErrorType(err);
  if (wantsJson(req)) return json(req, { error: type }, type === 'Configuration' ? 500 : 403, { noCache: true });
  return redirect(req, accountErrorUrl(req, type));
}

/** `POST {basePath}/link/:provider`: starts the provider's flow for the signed-in user, who signed in recently. */
export async function linkRoute(req: AuthRequest, providerId: string): Promise<Response> {
  requireCsrf(req);
  const provider = req.config.providersById.get(providerId);
  if (!provider) throw new InvalidProvider(`No provider with id "${providerId}".`, { actual: providerId });
  const gate = await sessionGate(req, { maxAge: LINK_MAX_AGE });
  if (!gate.ok) return notRecent(req, gate.reason);
  // A custom flow proves what it proves; the link stage refuses what is not a provider account.
  if (!ADDABLE.has(provider.type) && provider.flow === undefined) return refused(req, new AccessDenied(`Accounts of "${provider.id}" (${provider.type}) are not linked.`, { actual: provider.type }));
  return handleFlow(req, provider, 'link', { link: { userId: gate.userId } });
}

/** `POST {basePath}/unlink/:provider/:providerAccountId`: removes one of the user's linked accounts (never the last method). */
export async function unlinkRoute(req: AuthRequest, providerId: string, providerAccountId: string): Promise<Response> {
  requireCsrf(req);
  const gate = await sessionGate(req, { maxAge: LINK_MAX_AGE });
  if (!gate.ok) return notRecent(req, gate.reason);
  const { unlinkAccount } = await accountMethods();
  let done: Awaited<ReturnType<typeof unlinkAccount>>;
  try {
    done = await unlinkAccount(req, gate.userId, { provider: providerId, providerAccountId });
  } catch (err) {
    return refused(req, err);
  }
  await noteActivity(req, { kind: 'account.unlinked', userId: gate.userId, provider: done.account.provider, method: done.account.type });
  await dispatchEvent(req.config.events, req.config.logger, 'unlinkAccount', done);
  if (wantsJson(req)) return json(req, { unlinked: { provider: done.account.provider, providerAccountId: done.account.providerAccountId } }, 200, { noCache: true });
  return redirect(req, accountUrl(req));
}

/**
 * The signed-in devices by readable name, and how they can be ended: database sessions each (listed by
 * session control), a JWT session only itself (its own browser), the others at their next check when "sessions
 * valid after" is kept.
 */
async function devicesOf(req: AuthRequest, i18n: Translator): Promise<{ devices: AccountDeviceRow[]; sessionControl: SessionControl }> {
  if (req.config.session.strategy === 'database') {
    const sessions = req.config.adapter?.listSessions ? ((await listSessions(req)) ?? []) : [];
    const devices = await Promise.all(sessions.map(async (s) => ({ id: s.id, name: await deviceName(s.userAgent, i18n), current: s.current, createdAt: s.createdAt, lastSeenAt: s.lastSeenAt, place: s.ipAddress ?? null })));
    return { devices, sessionControl: req.config.adapter?.deleteSessions ? 'each' : 'thisOnly' };
  }
  const here = { name: await deviceName(req.request.headers.get('user-agent'), i18n), current: true, createdAt: null, lastSeenAt: null };
  return { devices: [here], sessionControl: keepsValidAfter(req) ? 'othersLater' : 'thisOnly' };
}

/** How many records the account page shows. */
export const ACCOUNT_ACTIVITY = 10;

/**
 * The user's newest security activity, for the account page; undefined when the log is off or unreadable (a read
 * that fails is logged: the page still shows the rest).
 */
async function recentActivity(req: AuthRequest, userId: string, i18n: Translator): Promise<AccountActivityRow[] | undefined> {
  if (!req.config.activity || !req.config.adapter?.listActivity) return undefined;
  try {
    const { records } = await req.config.adapter.listActivity({ userId, limit: ACCOUNT_ACTIVITY });
    return await Promise.all(records.map(async (r) => ({ kind: r.kind, at: r.at.toISOString(), device: await deviceName(r.userAgent, i18n), place: r.ip ?? null })));
  } catch (err) {
    req.config.logger.error(err instanceof Error ? err : new Error(String(err)));
    return undefined;
  }
}

/** `GET {basePath}/account`: the built-in account page (JSON for a client that asks), or a redirect to `pages.account`. */
export async function accountPageRoute(req: AuthRequest): Promise<Response> {
  if (req.config.pages.account) return redirect(req, accountUrl(req));
  const gate = await sessionGate(req);
  if (!gate.ok) return notRecent(req, 'signedOut');
  const methods = await (await accountMethods()).signInMethods(req, gate.userId);
  const providers = [...req.config.providersById.values()]
    .filter((p) => LINKABLE.has(p.type) || (p.flow !== undefined && p.type !== 'credentials' && p.type !== 'email'))
    .map((p) => {
      const account = methods.accounts.find((a) => a.provider === p.id);
      return { id: p.id, name: p.name, ...(account ? { providerAccountId: account.providerAccountId, linkedAt: account.linkedAt ? new Date(account.linkedAt).toISOString() : null } : {}) };
    });
  const i18n = await messagesFor(req);
  const { devices, sessionControl } = await devicesOf(req, i18n);
  const passkeys = await (await accountPasskeys()).listPasskeys(req, gate.userId);
  const activity = await recentActivity(req, gate.userId, i18n);
  if (wantsJson(req)) return json(req, { accounts: providers, passkeys: methods.passkeys, passkeyList: passkeys, email: methods.email, devices, sessionControl, ...(activity ? { activity } : {}) }, 200, { noCache: true });
  const error = req.query.error;
  const who = methods.user.email ?? methods.user.name ?? undefined;
  const passkey = [...req.config.providersById.values()].find((p) => p.type === 'webauthn');
  return html(
    req,
    renderAccountPage({
      theme: req.config.theme,
      authUrl: req.authUrl,
      csrfToken: csrf(req).token,
      ...(who ? { who } : {}),
      providers,
      passkeys,
      managePasskeys: Boolean(req.config.adapter?.renameAuthenticator && req.config.adapter.deleteAuthenticator),
      ...(passkey ? { passkeyProvider: passkey.id } : {}),
      factors: Boolean(req.config.secondFactor),
      changePassword: [...req.config.providersById.values()].some(isPasswordProvider),
      changeEmail: [...req.config.providersById.values()].some((p) => p.type === 'email'),
      organizations: Boolean(req.config.organizations),
      devices,
      sessionControl,
      ...(activity ? { activity } : {}),
      ...(error ? { notice: error } : {}),
      ...(req.query.done ? { done: req.query.done } : {}),
      nonce: pageNonce(req),
      i18n,
    }),
  );
}
