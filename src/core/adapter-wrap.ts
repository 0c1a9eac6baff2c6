// The boundary between authchart and any adapter: every call is logged and every failure becomes an AdapterError,
// and the methods the configured features need are checked once at start.

import { AdapterError, MissingAdapter, MissingAdapterMethods } from './errors.js';
import { adapterMethods, type Adapter, type AdapterMethod, type PruneResult, type SessionRecord, type VerificationToken } from './adapter.js';
import { factorAdapterMethods, type FactorAdapterMethods } from './factors.js';

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
  /** Copied from the adapter: it keeps `authTime`/`amr` with its sessions (see `Adapter.sessionFacts`). */
  readonly sessionFacts?: boolean;
  withTransaction?<T>(fn: (tx: WrappedAdapter) => Promise<T>): Promise<T>;
  getVerificationToken?(params: { identifier: string; token: string }): Promise<VerificationToken | null>;
  prune?(): Promise<PruneResult>;
  listSessions?(userId: string): Promise<SessionRecord[]>;
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
};

/** The part of the logger the adapter boundary uses. */
export interface AdapterLogger {
  debug(code: string, meta?: unknown): void;
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
}

/** Methods each feature calls (the D, E and W sets of the Auth.js reference). */
export const requiredAdapterMethods: Readonly<Record<keyof AdapterNeeds, readonly (AdapterMethod | keyof FactorAdapterMethods | 'listSessions' | 'deleteSessions')[]>> = {
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
      `The adapter is missing methods required by ${features.join(', ')}: ${missing.join(', ')}.`,
      { needs: features, missing },
    );
  }
}

function adapterError(method: string, thrown: unknown): AdapterError {
  if (thrown instanceof AdapterError) return thrown; // already wrapped by an inner wrapAdapter
  const err = thrown instanceof Error ? thrown : new Error(String(thrown));
  return new AdapterError(err, { method });
}

/**
 * Returns the adapter as authchart calls it: each method logs `adapter_<method>` with its arguments at debug
 * level and rejects with an `AdapterError` (`cause.err` the original error, `cause.method` its name) whenever the
 * underlying method throws or rejects. A method the adapter lacks rejects the same way (with a
 * `MissingAdapterMethods` as `cause.err`) instead of failing with a TypeError; `assertAdapter` on the *unwrapped*
 * adapter is what catches those at start.
 *
 * Debug logs include arguments such as session tokens: they are only emitted with `debug: true`.
 *
 * @example
 * assertAdapter(config.adapter, { database: true });
 * const adapter = wrapAdapter(config.adapter, logger);
 * try { await adapter.getSessionAndUser(token) } catch (e) { // e instanceof AdapterError }
 */
export function wrapAdapter(adapter: Adapter, logger: AdapterLogger): WrappedAdapter {
  const wrapped: Record<string, unknown> = {};
  if (adapter.sessionFacts === true) wrapped.sessionFacts = true;
  const source = adapter as Record<string, unknown>;
  for (const method of [...adapterMethods, ...factorAdapterMethods]) {
    const fn = source[method];
    wrapped[method] = async (...args: unknown[]) => {
      logger.debug(`adapter_${method}`, args);
      if (typeof fn !== 'function') {
        throw adapterError(method, new MissingAdapterMethods(`The adapter has no ${method} method.`, { missing: [method] }));
      }
      try {
        // `apply` keeps `this` for class-based adapters; `await` turns a synchronous throw into a rejection.
        return await fn.apply(adapter, args);
      } catch (e) {
        throw adapterError(method, e);
      }
    };
  }
  // Optional: a caller tells "cannot look" (absent) from "found nothing" (null).
  const getVerificationToken = adapter.getVerificationToken;
  if (typeof getVerificationToken === 'function') {
    wrapped.getVerificationToken = async (params: { identifier: string; token: string }) => {
      logger.debug('adapter_getVerificationToken', [params]);
      try {
        return await getVerificationToken.call(adapter, params);
      } catch (e) {
        throw adapterError('getVerificationToken', e);
      }
    };
  }
  // Optional extensions, wrapped only when present: absent, a caller knows the feature is not there.
  for (const name of ['prune', 'listSessions', 'deleteSessions', 'getSessionsValidAfter', 'setSessionsValidAfter', 'getUserAccount', 'claimTokenRefresh', 'readTokenRefresh', 'finishTokenRefresh', 'findProviderSessionUsers', 'useLogoutToken', 'setFlowValue', 'getFlowValue', 'takeFlowValue'] as const) {
    const fn = adapter[name] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof fn !== 'function') continue;
    wrapped[name] = async (...args: unknown[]) => {
      logger.debug(`adapter_${name}`, args);
      try {
        return await fn.apply(adapter, args);
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
      try {
        return (await withTransaction.call(adapter, async (tx: Adapter) => {
          try {
            return await fn(wrapAdapter(tx, logger));
          } catch (e) {
            inner = { error: e };
            throw e;
          }
        })) as T;
      } catch (e) {
        if (inner && e === inner.error) throw e;
        throw adapterError('withTransaction', e);
      }
    };
  }
  return wrapped as WrappedAdapter;
}
