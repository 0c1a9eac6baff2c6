// The boundary between authchart and any adapter: every call is logged and has a deadline, every failure becomes an
// AdapterError (a ServiceUnavailable when the database cannot be reached or does not answer in time), and the
// methods the configured features need are checked once at start.

import { AdapterError, MissingAdapter, MissingAdapterMethods, ServiceUnavailable } from './errors.js';
import { redactAdapterArgs } from './redact.js';
import { DEFAULT_STORE_TIMEOUT, outage, storeError, withDeadline } from './store-deadline.js';
import type { ActivityPage, ActivityQuery, ActivityRecord } from './activity.js';
import { adapterMethods, type Adapter, type AdapterMethod, type PruneOptions, type PruneResult, type SessionRecord, type VerificationToken } from './adapter.js';
import { factorAdapterMethods, type FactorAdapterMethods } from './factors.js';
import { organizationAdapterMethods, type OrganizationAdapterMethods } from './organizations.js';
import { ssoAdapterMethods, type SsoAdapterMethods } from '../sso/types.js';
import { webhookAdapterMethods, type WebhookAdapterMethods } from './webhook-outbox.js';
import { invitationAdapterMethods, type InvitationAdapterMethods } from './invitations.js';

type MethodOf<K extends AdapterMethod> = NonNullable<Adapter[K]>;

/**
 * An adapter as the rest of authchart sees it: every data method present and returning a promise that rejects
 * only with `AdapterError`. The extensions (`withTransaction`, `getVerificationToken`) are present only when the
 * underlying adapter has them.
 */
export type WrappedAdapter = {
  [K in AdapterMethod]: (...args: Parameters<MethodOf<K>>) => Promise<Awaited<ReturnType<MethodOf<K>>>>;
} & {
  [K in keyof FactorAdapterMethods]: (...args: Parameters<FactorAdapterMethods[K]>) => Promise<Awaited<ReturnType<FactorAdapterMethods[K]>>>;
} & {
  /** Organizations: present when the adapter has them (required at start once `organizations` is configured). */
  [K in keyof OrganizationAdapterMethods]?: (...args: Parameters<OrganizationAdapterMethods[K]>) => Promise<Awaited<ReturnType<OrganizationAdapterMethods[K]>>>;
} & {
  /** SSO connections and verified domains: present when the adapter has them (required at start once `sso` is configured). */
  [K in keyof SsoAdapterMethods]?: (...args: Parameters<SsoAdapterMethods[K]>) => Promise<Awaited<ReturnType<SsoAdapterMethods[K]>>>;
} & {
  /** The webhook outbox: present when the adapter has it (`enqueueWebhooks` on a transaction's adapter too). */
  [K in keyof WebhookAdapterMethods]?: (...args: Parameters<WebhookAdapterMethods[K]>) => Promise<Awaited<ReturnType<WebhookAdapterMethods[K]>>>;
} & {
  /** Invitations: present when the adapter has them (required at start with `organizations`, as the methods above). */
  [K in keyof InvitationAdapterMethods]?: (...args: Parameters<InvitationAdapterMethods[K]>) => Promise<Awaited<ReturnType<InvitationAdapterMethods[K]>>>;
} & {
  /** Copied from the adapter: it keeps `authTime`/`amr` with its sessions (see `Adapter.sessionFacts`). */
  readonly sessionFacts?: boolean;
  withTransaction?<T>(fn: (tx: WrappedAdapter) => Promise<T>): Promise<T>;
  /**
   * Present on a transaction's adapter (the `tx` of `withTransaction`): `fn` runs once the transaction has committed,
   * before `withTransaction` returns, and never when it rolls back. What tells the world of an outcome (a stream, a
   * notice mail) waits for the outcome to be real. A failure of `fn` is logged, never thrown.
   */
  afterCommit?(fn: () => unknown): void;
  lockUser?(userId: string): Promise<void>;
  getVerificationToken?(params: { identifier: string; token: string }): Promise<VerificationToken | null>;
  prune?(options?: PruneOptions): Promise<PruneResult>;
  appendActivity?(records: ActivityRecord[]): Promise<void>;
  createSessionWithActivity?(session: { sessionToken: string; userId: string; expires: Date }, records: ActivityRecord[]): Promise<unknown>;
  listActivity?(query: ActivityQuery): Promise<ActivityPage>;
  listSessions?(userId: string): Promise<SessionRecord[]>;
  renameAuthenticator?(userId: string, credentialID: string, name: string): Promise<boolean>;
  deleteAuthenticator?(userId: string, credentialID: string): Promise<boolean>;
  deleteSessions?(userId: string, options?: { except?: string }): Promise<number>;
  getSessionsValidAfter?(userId: string): Promise<Date | null>;
  setSessionsValidAfter?(userId: string, at: Date, keepUntil?: Date): Promise<void>;
  getUserAccount?(...args: Parameters<NonNullable<Adapter['getUserAccount']>>): Promise<Awaited<ReturnType<NonNullable<Adapter['getUserAccount']>>>>;
  claimTokenRefresh?(...args: Parameters<NonNullable<Adapter['claimTokenRefresh']>>): Promise<Awaited<ReturnType<NonNullable<Adapter['claimTokenRefresh']>>>>;
  readTokenRefresh?(...args: Parameters<NonNullable<Adapter['readTokenRefresh']>>): Promise<Awaited<ReturnType<NonNullable<Adapter['readTokenRefresh']>>>>;
  finishTokenRefresh?(...args: Parameters<NonNullable<Adapter['finishTokenRefresh']>>): Promise<void>;
  findProviderSessionUsers?(provider: string, match: { sid?: string; sub?: string }): Promise<string[]>;
  useLogoutToken?(issuer: string, jti: string, expires: Date): Promise<boolean>;
  setFlowValue?(key: string, value: string, expires: Date): Promise<void>;
  getFlowValue?(key: string): Promise<{ value: string; expires: Date } | null>;
  takeFlowValue?(key: string): Promise<{ value: string; expires: Date } | null>;
  getPasswordHash?(userId: string): Promise<string | null>;
  setPasswordHash?(userId: string, hash: string, expected?: string): Promise<boolean>;
  addFlowValue?(key: string, value: string, expires: Date, now: Date): Promise<boolean>;
  incrementFlowValue?(key: string, expires: Date, now: Date): Promise<number>;
};

/** The part of the logger the adapter boundary uses. */
export interface AdapterLogger {
  debug(code: string, meta?: unknown): void;
  /** False when nobody reads debug output: the arguments are then not even redacted for it. */
  readonly debugEnabled?: boolean;
  /** Where a failure of an after-commit job goes (see `afterCommit`). */
  error?(err: Error): void;
}

/** Features of a configuration that need adapter methods. */
export interface AdapterNeeds {
  /** Session strategy `database`. */
  database?: boolean;
  /** At least one e-mail (magic link) provider. */
  email?: boolean;
  /** At least one WebAuthn provider. */
  webauthn?: boolean;
  /** The `secondFactor` option. */
  secondFactor?: boolean;
  /** `session.control: true` with database sessions: listing and ending sessions. */
  sessionControl?: boolean;
  /** At least one Password provider: users found by address, their hashes read and written. */
  password?: boolean;
  /** The `organizations` option: organizations and memberships kept by the adapter. */
  organizations?: boolean;
  /** The `sso` option: connections and verified domains kept by the adapter. */
  sso?: boolean;
}

/** Methods each feature calls (the D, E and W sets of the Auth.js reference). */
export const requiredAdapterMethods: Readonly<Record<keyof AdapterNeeds, readonly (AdapterMethod | keyof FactorAdapterMethods | 'listSessions' | 'deleteSessions' | 'getPasswordHash' | 'setPasswordHash' | keyof OrganizationAdapterMethods | keyof SsoAdapterMethods | keyof InvitationAdapterMethods)[]>> = {
  database: [
    'createUser',
    'getUser',
    'getUserByEmail',
    'getUserByAccount',
    'updateUser',
    'linkAccount',
    'createSession',
    'getSessionAndUser',
    'updateSession',
    'deleteSession',
  ],
  // Beyond the reference's E set: a magic link creates the user or marks its e-mail verified.
  email: ['getUserByEmail', 'createVerificationToken', 'useVerificationToken', 'createUser', 'updateUser'],
  webauthn: [
    'createUser',
    'getUser',
    'linkAccount',
    'getAccount',
    'getAuthenticator',
    'createAuthenticator',
    'listAuthenticatorsByUserId',
    'updateAuthenticatorCounter',
  ],
  // Factors, and the user they belong to.
  secondFactor: ['getUser', ...factorAdapterMethods],
  sessionControl: ['listSessions', 'deleteSessions'],
  password: ['getUser', 'getUserByEmail', 'getPasswordHash', 'setPasswordHash'],
  organizations: [...organizationAdapterMethods, ...invitationAdapterMethods],
  sso: [...organizationAdapterMethods, ...invitationAdapterMethods, ...ssoAdapterMethods],
};

// What to do about a missing method, where the name alone does not say.
const MISSING_HINT: Partial<Record<keyof AdapterNeeds, string>> = {
  organizations:
    ' Organizations keep their data through the adapter: add these methods (PostgresAdapter has them; run `npx authchart migrate` for its organizations and memberships tables), or remove the `organizations` option.',
  sso: ' Enterprise SSO keeps connections and verified domains through the adapter: add these methods (PostgresAdapter has them; run `npx authchart migrate` for its sso_connections and organization_domains tables), or remove the `sso` option.',
  password:
    ' A Password provider keeps hashes through getPasswordHash(userId) and setPasswordHash(userId, hash, expected?): add both to your adapter (PostgresAdapter has them; run `npx authchart migrate` for its passwords table).',
};

/**
 * Checks at start that the adapter has every method the configured features call, so a missing one is a
 * configuration error instead of a failure in the middle of someone's sign-in.
 *
 * @throws MissingAdapter when a feature needs an adapter and none is configured.
 * @throws MissingAdapterMethods naming every missing method.
 * @example
 * assertAdapter(config.adapter, { database: config.session.strategy === 'database', email: hasEmailProvider });
 */
export function assertAdapter(adapter: Adapter | null | undefined, needs: AdapterNeeds): void {
  const features = (Object.keys(requiredAdapterMethods) as (keyof AdapterNeeds)[]).filter((f) => needs[f]);
  if (features.length === 0) return;
  if (adapter == null) {
    throw new MissingAdapter(`An adapter is required by: ${features.join(', ')}.`, { needs: features });
  }
  const missing = [...new Set(features.flatMap((f) => requiredAdapterMethods[f]))].filter(
    (m) => typeof adapter[m] !== 'function',
  );
  if (missing.length > 0) {
    throw new MissingAdapterMethods(
      `The adapter is missing methods required by ${features.join(', ')}: ${missing.join(', ')}.${features.filter((f) => requiredAdapterMethods[f].some((m) => missing.includes(m))).map((f) => MISSING_HINT[f] ?? '').join('')}`,
      { needs: features, missing },
    );
  }
}

function adapterError(method: string, thrown: unknown): AdapterError {
  return storeError(method, thrown);
}

/** Options of {@link wrapAdapter}. */
export interface WrapAdapterOptions {
  /** Deadline of one call (a transaction counts as one), in ms; `storeTimeout` in the configuration. */
  timeout?: number;
  /**
   * Inside a transaction: false once the transaction's deadline has passed, so a late statement fails (and the
   * transaction rolls back) instead of committing work whose answer was already sent.
   */
  live?: () => boolean;
}

/** How many more deadlines a COMMIT already sent is waited for, when the transaction's deadline passes meanwhile. */
export const COMMIT_GRACE = 2;

function expired(method: string): ServiceUnavailable {
  return outage(`The transaction's deadline passed before ${method}.`, { method });
}

/**
 * Returns the adapter as authchart calls it: each method logs `adapter_<method>` with its arguments at debug
 * level and rejects with an `AdapterError` (`cause.err` the original error, `cause.method` its name) whenever the
 * underlying method throws or rejects. A method the adapter lacks rejects the same way (with a
 * `MissingAdapterMethods` as `cause.err`) instead of failing with a TypeError; `assertAdapter` on the *unwrapped*
 * adapter is what catches those at start.
 *
 * Debug logs show the arguments with every credential redacted (session and provider tokens, codes, flow-store keys
 * and values): a custom logger receives them even without `debug: true`.
 *
 * @example
 * assertAdapter(config.adapter, { database: true });
 * const adapter = wrapAdapter(config.adapter, logger);
 * try { await adapter.getSessionAndUser(token) } catch (e) { // e instanceof AdapterError }
 */
export function wrapAdapter(adapter: Adapter, logger: AdapterLogger, options: WrapAdapterOptions = {}): WrappedAdapter {
  const timeout = options.timeout ?? DEFAULT_STORE_TIMEOUT;
  const live = options.live ?? (() => true);
  // Each call's arguments, redacted, for whoever reads debug output (core/redact.ts).
  const debug = (method: string, args: unknown[]) => {
    if (logger.debugEnabled !== false) logger.debug(`adapter_${method}`, redactAdapterArgs(method, args));
  };
  const wrapped: Record<string, unknown> = {};
  if (adapter.sessionFacts === true) wrapped.sessionFacts = true;
  const source = adapter as Record<string, unknown>;
  for (const method of [...adapterMethods, ...factorAdapterMethods]) {
    const fn = source[method];
    wrapped[method] = async (...args: unknown[]) => {
      debug(method, args);
      if (typeof fn !== 'function') {
        throw adapterError(method, new MissingAdapterMethods(`The adapter has no ${method} method.`, { missing: [method] }));
      }
      if (!live()) throw expired(method);
      try {
        // `apply` keeps `this` for class-based adapters; `await` turns a synchronous throw into a rejection.
        return await withDeadline(async () => await fn.apply(adapter, args), timeout, method);
      } catch (e) {
        throw adapterError(method, e);
      }
    };
  }
  // Optional: a caller tells "cannot look" (absent) from "found nothing" (null).
  const getVerificationToken = adapter.getVerificationToken;
  if (typeof getVerificationToken === 'function') {
    wrapped.getVerificationToken = async (params: { identifier: string; token: string }) => {
      debug('getVerificationToken', [params]);
      if (!live()) throw expired('getVerificationToken');
      try {
        return await withDeadline(async () => await getVerificationToken.call(adapter, params), timeout, 'getVerificationToken');
      } catch (e) {
        throw adapterError('getVerificationToken', e);
      }
    };
  }
  // Optional extensions, wrapped only when present: absent, a caller knows the feature is not there.
  for (const name of [...organizationAdapterMethods, ...ssoAdapterMethods, ...webhookAdapterMethods, ...invitationAdapterMethods, 'appendActivity', 'createSessionWithActivity', 'listActivity', 'lockUser', 'prune', 'listSessions', 'deleteSessions', 'getSessionsValidAfter', 'setSessionsValidAfter', 'getUserAccount', 'claimTokenRefresh', 'readTokenRefresh', 'finishTokenRefresh', 'findProviderSessionUsers', 'useLogoutToken', 'setFlowValue', 'getFlowValue', 'takeFlowValue', 'addFlowValue', 'incrementFlowValue', 'getPasswordHash', 'setPasswordHash', 'renameAuthenticator', 'deleteAuthenticator'] as const) {
    const fn = adapter[name] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof fn !== 'function') continue;
    wrapped[name] = async (...args: unknown[]) => {
      // A password hash is logged by its user id only: a debug log is no place for something to crack offline.
      debug(name, name === 'setPasswordHash' ? [args[0]] : args);
      if (!live()) throw expired(name);
      try {
        return await withDeadline(async () => await fn.apply(adapter, args), timeout, name);
      } catch (e) {
        throw adapterError(name, e);
      }
    };
  }
  const withTransaction = adapter.withTransaction;
  if (typeof withTransaction === 'function') {
    wrapped.withTransaction = async <T>(fn: (tx: WrappedAdapter) => Promise<T>): Promise<T> => {
      logger.debug('adapter_withTransaction', []);
      // Errors thrown by `fn` itself (already AdapterErrors, or the caller's own) pass through unchanged;
      // only a failure to begin or commit is the adapter's.
      let inner: { error: unknown } | undefined;
      let done = false;
      // What waits for the commit (afterCommit); dropped with a rollback.
      const committed: (() => unknown)[] = [];
      const runCommitted = async () => {
        for (const job of committed.splice(0)) {
          try {
            await job();
          } catch (err) {
            logger.error?.(err instanceof Error ? err : new Error(String(err)));
          }
        }
      };
      // Set once `fn` has resolved in time: the adapter is committing, and only the database knows the outcome now.
      let committing = false;
      const txOptions: WrapAdapterOptions = { timeout, live: () => !done && live() };
      const startedAt = Date.now();
      const running = (async () =>
        (await withTransaction.call(
          adapter,
          async (tx: Adapter) => {
            try {
              const inTx = wrapAdapter(tx, logger, txOptions);
              inTx.afterCommit = (job) => void committed.push(job);
              const result = await fn(inTx);
              // Answered already (deadline passed): roll back rather than commit what the caller was told failed.
              if (done) throw expired('commit');
              committing = true;
              return result;
            } catch (e) {
              inner = { error: e };
              throw e;
            }
          },
          // What is left of the deadline once BEGIN is sent: the database stops statements that outlive it.
          { timeout: Math.max(1, timeout - (Date.now() - startedAt)) },
        )) as T)();
      running.catch(() => {});
      try {
        const result = await withDeadline(() => running, timeout, 'withTransaction');
        await runCommitted();
        return result;
      } catch (e) {
        // The deadline passed while COMMIT was on its way: answering now would tell the caller "failed" about work
        // that may be committed (PostgreSQL's statement_timeout does not stop a COMMIT). Wait for the database's
        // answer instead, up to COMMIT_GRACE more deadlines, and report it. Only a COMMIT that gets no answer at all
        // (a connection lost mid-commit) leaves the outcome unknown: then the answer is ServiceUnavailable.
        if (committing && e instanceof ServiceUnavailable && inner === undefined) {
          try {
            const result = await withDeadline(() => running, COMMIT_GRACE * timeout, 'commit');
            await runCommitted();
            return result;
          } catch (late) {
            done = true;
            if (inner && late === (inner as { error: unknown }).error) throw late;
            throw adapterError('withTransaction', late);
          }
        }
        done = true;
        if (inner && e === inner.error) throw e;
        throw adapterError('withTransaction', e);
      }
    };
  }
  return wrapped as WrappedAdapter;
}
