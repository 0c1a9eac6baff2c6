// The records of machine outcomes, as the runtime names them: a sign-in that failed or succeeded, a second factor
// passed or failed, and what the machines emit (a factor enrolled or removed, a wrong code, an account linked). The
// runtime calls these at the one place each outcome is reached (flows/runtime/flow.ts, account-run.ts,
// signed-in-run.ts), so every run of every machine that reaches an outcome leaves its record.
import { AuthError } from '../core/errors.js';
import type { RequestContext } from '../core/request-context.js';
import type { Account, User } from '../core/types.js';
import { activityRecord } from './record.js';
import { noteActivity } from './run.js';
import { writeActivity } from './write.js';
import type { WrappedAdapter } from '../core/adapter-wrap.js';
import type { ActivityKind, ActivityRecord } from './types.js';

/** The error type of a failure: its class's stable type, never its message (messages can quote input). */
export function reasonOf(error: unknown): string {
  if (error instanceof AuthError) return error.type;
  if (error instanceof Error) return error.name;
  return 'Error';
}

const idOf = (user: { id?: unknown } | null | undefined): string | null => (typeof user?.id === 'string' && user.id !== '' ? user.id : typeof user?.id === 'number' ? String(user.id) : null);

/** A sign-in (or link) that ended without a session. */
export function noteSignInFailed(req: RequestContext, error: unknown, user?: { id?: unknown } | null): Promise<void> {
  return noteActivity(req, { kind: 'signIn.failed', userId: idOf(user), method: methodOfRun(req), reason: reasonOf(error) });
}

/**
 * A sign-in the app's `signIn` callback sent elsewhere (it answered with a URL): no session, so a refusal on record,
 * `AccessDenied` as a `false` answer is, with `detail.redirected` (never the URL: an app's could carry anything).
 */
export function noteSignInRefused(req: RequestContext, user?: { id?: unknown } | null): Promise<void> {
  return noteActivity(req, { kind: 'signIn.failed', userId: idOf(user), method: methodOfRun(req), reason: 'AccessDenied', detail: { redirected: true } });
}

/** A second-factor check that ended without passing (expired, another user's, a store failure). */
export function noteSecondFactorFailed(req: RequestContext, userId: unknown, error: unknown): Promise<void> {
  return noteActivity(req, { kind: 'secondFactor.failed', userId: idOf({ id: userId }), reason: reasonOf(error) });
}

/** A second-factor check that passed, by `method` (`totp`, `backupCode`, `webauthn`). */
export function noteSecondFactorPassed(req: RequestContext, userId: unknown, method: string | undefined, purpose: string | undefined): Promise<void> {
  return noteActivity(req, { kind: 'secondFactor.passed', userId: idOf({ id: userId }), method: method ?? null, ...(purpose ? { detail: { purpose } } : {}) });
}

/** The method of the running sign-in: the provider's type (`oauth`, `email`, `credentials`, `webauthn`). */
function methodOfRun(req: RequestContext): string | null {
  const id = req.activity?.provider;
  const provider = id ? req.config.providersById.get(id) : undefined;
  return provider ? provider.type : null;
}

/**
 * The records of a sign-in that reached its session: `signIn.succeeded`, and `signUp.completed` for a new user.
 * Built before the session is written, so the transaction that writes it writes them.
 */
export async function signInRecords(req: RequestContext, pending: { user: User; account: Account | null; isNewUser?: boolean }, secondFactor: string | undefined): Promise<ActivityRecord[]> {
  if (!req.config.activity) return [];
  const userId = idOf(pending.user);
  const provider = pending.account?.provider ?? req.activity?.provider ?? null;
  const method = pending.account?.type ?? methodOfRun(req);
  const detail = secondFactor ? { secondFactor } : undefined;
  // The sign-up first: its time is never after the sign-in's it led to.
  const records = pending.isNewUser ? [await activityRecord(req, { kind: 'signUp.completed', userId, provider, method })] : [];
  records.push(await activityRecord(req, { kind: 'signIn.succeeded', userId, provider, method, ...(detail ? { detail } : {}) }));
  return records;
}

/** What a machine emitted, as records: factors enrolled and removed, wrong codes, accounts linked. */
export async function noteEmitted(req: RequestContext, emitted: readonly { type: string }[]): Promise<void> {
  if (!req.config.activity) return;
  const created = emitted.some((e) => e.type === 'createUser');
  for (const ev of emitted) {
    const e = ev as { type: string; user?: User; factor?: { kind?: string }; locked?: boolean; account?: Account };
    const userId = idOf(e.user);
    let kind: ActivityKind | undefined;
    let fields: { method?: string | null; reason?: string | null; provider?: string | null } = {};
    switch (e.type) {
      case 'factorEnrolled':
        kind = 'factor.added';
        fields = { method: e.factor?.kind === 'backup' ? 'backupCode' : 'totp' };
        break;
      case 'factorRemoved':
        kind = 'factor.removed';
        fields = { method: e.factor?.kind === 'backup' ? 'backupCode' : 'totp' };
        break;
      case 'secondFactorFailed':
        kind = 'secondFactor.failed';
        fields = { reason: e.locked ? 'SecondFactorLocked' : 'WrongCode' };
        break;
      case 'linkAccount':
        // A new user's first account is part of the sign-up, not a link of its own; a credentials account mirrors the
        // user the provider's own code vouched for (no second way in).
        if (created || e.account?.type === 'credentials') break;
        kind = e.account?.type === 'webauthn' ? 'passkey.added' : 'account.linked';
        fields = { provider: e.account?.provider ?? null, method: e.account?.type ?? null };
        break;
    }
    if (kind) await noteActivity(req, { kind, userId, ...fields });
  }
}

/**
 * A password reset's `recovery.completed`, written with the new hash: through `tx`, the reset's transaction (a record
 * the database refuses fails the reset, which leaves the old hash), or at once when the adapter has no transactions.
 */
export async function writeRecoveryCompleted(req: RequestContext, userId: string, tx: WrappedAdapter | undefined): Promise<void> {
  if (!req.config.activity) return;
  const run = req.activity;
  const flow = run?.flow ? { ...run.flow, transition: 'resetting → notifying' } : null;
  const record = await activityRecord(req, { kind: 'recovery.completed', userId, method: 'password', flow });
  await writeActivity(req, [record], tx ? { tx } : {});
}
