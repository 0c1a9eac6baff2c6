// A signed-in user's passkeys as the account page manages them: listed with their name and dates, renamed, and
// removed (never the last way to sign in). Every change names the user: another user's credential id changes nothing.
import { noteActivity } from '../../activity/run.js';
import { AccessDenied, InvalidRequest, MissingAdapterMethods } from '../../core/errors.js';
import type { WrappedAdapter } from '../../core/adapter-wrap.js';
import type { RequestContext } from '../../core/request-context.js';
import { authenticatorName } from '../webauthn/authenticator-names.js';
import { underUserLock } from './last-method.js';
import { countMethods, signInMethodsIn } from './methods.js';

/** One passkey as its owner sees it. `id` is the credential id (public: the browser holds it). */
export interface PasskeyInfo {
  id: string;
  name: string | null;
  createdAt: string | null;
  lastUsedAt: string | null;
  /** The passkey provider, by the AAGUID reported at registration ("iCloud Keychain"); null when not known. */
  authenticator: string | null;
}

/** The longest name kept (characters); a longer one is cut. */
export const PASSKEY_NAME_MAX = 64;

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/** The user's passkeys, oldest first; `[]` with an adapter that keeps none. */
export async function listPasskeys(req: RequestContext, userId: string): Promise<PasskeyInfo[]> {
  const adapter = req.config.adapter;
  if (!adapter?.listAuthenticatorsByUserId) return [];
  const rows = await adapter.listAuthenticatorsByUserId(userId);
  const names = appNames(req);
  return rows.map((a) => ({ id: a.credentialID, name: a.name ?? null, createdAt: iso(a.createdAt), lastUsedAt: iso(a.lastUsedAt), authenticator: authenticatorName(a.aaguid, names) }));
}

/** The app's own provider names, from its WebAuthn providers' `authenticatorNames`. */
function appNames(req: RequestContext): Record<string, string> {
  const names: Record<string, string> = {};
  for (const p of req.config.providers) if (p.type === 'webauthn' && p.authenticatorNames) Object.assign(names, p.authenticatorNames);
  return names;
}

function adapterWith<K extends 'renameAuthenticator' | 'deleteAuthenticator'>(req: RequestContext, method: K): NonNullable<WrappedAdapter[K]> {
  const adapter = req.config.adapter;
  const fn = adapter?.[method];
  if (!adapter || typeof fn !== 'function') {
    throw new MissingAdapterMethods(`Managing passkeys needs the adapter method ${method} (PostgresAdapter has it; run \`npx authchart migrate\`).`, { missing: [method] });
  }
  return fn.bind(adapter) as NonNullable<WrappedAdapter[K]>;
}

/** A name as stored: spaces folded, control characters dropped, cut to {@link PASSKEY_NAME_MAX}; refused when empty. */
export function passkeyName(raw: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const name = [...(raw ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').replace(/\s+/g, ' ').trim()].slice(0, PASSKEY_NAME_MAX).join('');
  if (!name) throw new InvalidRequest('A passkey name cannot be empty.');
  return name;
}

/** Renames one of the user's passkeys; AccessDenied when the user holds none with that id. */
export async function renamePasskey(req: RequestContext, userId: string, id: string, raw: string | undefined): Promise<void> {
  const rename = adapterWith(req, 'renameAuthenticator');
  const name = passkeyName(raw);
  if (!(await rename(userId, id, name))) throw new AccessDenied('No such passkey belongs to the signed-in user.', { expected: 'a passkey of this user', actual: 'none' });
}

/**
 * Removes one of the user's passkeys with its account. Refused (AccessDenied) when it is not theirs, or when it is
 * the last way they can sign in (their other passkeys, linked accounts and a proven address count). The count and
 * the delete are one step against every other removal for this user (an unlink, another passkey): see
 * `underUserLock`. Without `lockUser`, the fallback re-counts after the delete and puts the passkey back when
 * nothing is left.
 */
export async function removePasskey(req: RequestContext, userId: string, id: string): Promise<void> {
  adapterWith(req, 'deleteAuthenticator');
  const notMine = () => new AccessDenied('No such passkey belongs to the signed-in user.', { expected: 'a passkey of this user', actual: 'none' });
  const lastOne = () => new AccessDenied('This passkey is the last way to sign in; add another first.', { expected: 'another sign-in method', actual: 0 });
  await underUserLock(
    req,
    userId,
    async (tx) => {
      const methods = await signInMethodsIn(req, tx, userId);
      const rows = tx.listAuthenticatorsByUserId ? await tx.listAuthenticatorsByUserId(userId) : [];
      const passkey = rows.find((p) => p.credentialID === id);
      if (!passkey) throw notMine();
      const account = methods.accounts.find((a) => a.type === 'webauthn' && a.providerAccountId === id) ?? null;
      if (countMethods(methods) - 1 < 1) throw lastOne();
      if (!(await tx.deleteAuthenticator!(userId, id))) throw notMine();
      return { passkey, account };
    },
    {
      recount: async (adapter) => countMethods(await signInMethodsIn(req, adapter, userId)),
      restore: async (adapter, removed) => {
        if (removed.account) await adapter.linkAccount(removed.account);
        await adapter.createAuthenticator!(removed.passkey);
      },
      refuse: lastOne,
    },
  );
  await noteActivity(req, { kind: 'passkey.removed', userId, method: 'webauthn' });
}
