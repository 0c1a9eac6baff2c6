// The Adapter contract: how authchart reads and writes users, accounts, sessions, tokens and authenticators.
// Shape-compatible with Auth.js (`@auth/core/adapters`), so an existing `@auth/*-adapter` object plugs in as is.

import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  Awaitable,
  VerificationToken,
} from './types.js';
import type { FactorAdapterMethods } from './factors.js';
import type { AdapterMembership, OrganizationAdapterMethods } from './organizations.js';
import type { SsoAdapterMethods } from '../sso/types.js';
import type { WebhookAdapterMethods } from './webhook-outbox.js';
import type { InvitationAdapterMethods } from './invitations.js';
import type { ActivityAdapterMethods } from './activity.js';

export type {
  Account,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  User,
  VerificationToken,
} from './types.js';

/**
 * A user as an adapter writes and returns it: core's `AdapterUser` without its open index signature. Auth.js
 * declares its users as interfaces, which TypeScript never lets satisfy an index signature, so the methods' types use
 * this one. It is itself assignable to `AdapterUser`; extra fields (a profile's, an adapter's columns) are still
 * there at runtime. `email` is null for a user with no address (a phone number, a passkey alone).
 */
export type StoredUser = Pick<AdapterUser, 'id' | 'name' | 'email' | 'emailVerified' | 'image'>;

/** The pair that identifies an account across providers. */
export type AccountKey = Pick<AdapterAccount, 'provider' | 'providerAccountId'>;

/**
 * A storage backend. Every method is optional, as in Auth.js: which ones must exist depends on the configured
 * features and is checked once at start by `assertAdapter` (strategy `database`, e-mail providers, WebAuthn).
 * Each method may return a value or a promise; authchart always calls it through `wrapAdapter`.
 *
 * The return types deliberately admit what Auth.js adapters return (`void`, `undefined`), so that their
 * objects (typed with `@auth/core/adapters`) are assignable to this interface; code using an adapter must not
 * rely on more than the contract.
 *
 * @example
 * import PgAdapter from '@auth/pg-adapter';
 * const adapter: Adapter = PgAdapter(pool);           // an Auth.js adapter, unchanged
 * const adapter2: Adapter = PostgresAdapter(pglite);  // authchart's own
 */
export interface Adapter extends Partial<FactorAdapterMethods>, Partial<OrganizationAdapterMethods>, Partial<SsoAdapterMethods>, Partial<WebhookAdapterMethods>, Partial<InvitationAdapterMethods>, Partial<ActivityAdapterMethods> {
  /**
   * authchart extension, absent from Auth.js adapters: `true` when the adapter keeps authchart's session facts
   * (`authTime`, `amr`) with the session row: `createSession` and `updateSession` then receive them and
   * `getSessionAndUser` returns them. Without it, those methods receive exactly the Auth.js keys
   * (`{ sessionToken, userId, expires }`, `{ sessionToken, expires }`) and authchart keeps the facts in a sealed
   * cookie bound to the session (PostgresAdapter sets it).
   *
   * @example
   * const adapter: Adapter = { ...myAdapter, sessionFacts: true }
   */
  readonly sessionFacts?: boolean;
  /** Stores a new user. `user.id` is a fresh random UUID the adapter may keep or replace. */
  createUser?(user: StoredUser): Awaitable<StoredUser>;
  /** The user with this id, or `null`. */
  getUser?(id: string): Awaitable<StoredUser | null>;
  /** The user with exactly this e-mail address, or `null`. */
  getUserByEmail?(email: string): Awaitable<StoredUser | null>;
  /** The user that owns the account `{provider, providerAccountId}`, or `null`. */
  getUserByAccount?(account: AccountKey): Awaitable<StoredUser | null>;
  /** Updates the given fields of the user `id` and returns the whole user. */
  updateUser?(user: Partial<StoredUser> & Pick<StoredUser, 'id'>): Awaitable<StoredUser>;
  /** Deletes the user together with its sessions, accounts and authenticators. Never called by core. */
  deleteUser?(userId: string): Awaitable<StoredUser | null | undefined | void>;
  /** Links a provider account to `account.userId`. */
  linkAccount?(account: AdapterAccount): Awaitable<AdapterAccount | null | undefined | void>;
  /** Removes the account `{provider, providerAccountId}`. Never called by core. */
  unlinkAccount?(account: AccountKey): Awaitable<AdapterAccount | undefined | void>;
  /** Stores a database session. */
  createSession?(session: { sessionToken: string; userId: string; expires: Date }): Awaitable<AdapterSession>;
  /**
   * The session with this token and its user, in one call, or `null`. An adapter that keeps organizations may add
   * `membership`: the user's membership in the session's active organization, read in the same statement (null when
   * not a member). The organization gate then reads no membership of its own; without it, it calls `getMembership`.
   */
  getSessionAndUser?(sessionToken: string): Awaitable<{ session: AdapterSession; user: StoredUser; membership?: AdapterMembership | null } | null>;
  /** Updates the session with `sessionToken` (usually its `expires`). */
  updateSession?(
    session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'>,
  ): Awaitable<AdapterSession | null | undefined>;
  /** Deletes the session with this token. */
  deleteSession?(sessionToken: string): Awaitable<AdapterSession | null | undefined | void>;
  /** Stores a magic-link token (`token` is already hashed by core). */
  createVerificationToken?(verificationToken: VerificationToken): Awaitable<VerificationToken | null | undefined>;
  /**
   * Returns **and deletes** the token matching both `identifier` and `token`, or `null`. Must be atomic:
   * of two concurrent calls with the same token, at most one may return it.
   */
  useVerificationToken?(params: { identifier: string; token: string }): Awaitable<VerificationToken | null>;
  /**
   * authchart extension, absent from Auth.js adapters: returns the token matching both `identifier` and `token`,
   * or `null`, **without** deleting it (expired ones too: expiry is core's check). Opening a magic link uses it to
   * name the address on the confirmation page only when a stored token backs the link; without it the page names
   * no address.
   *
   * @example
   * const pending = await adapter.getVerificationToken?.({ identifier: 'ada@example.com', token: hashed });
   */
  getVerificationToken?(params: { identifier: string; token: string }): Awaitable<VerificationToken | null>;
  /** The account `(providerAccountId, provider)`, or `null` (WebAuthn authentication). */
  getAccount?(
    providerAccountId: AdapterAccount['providerAccountId'],
    provider: AdapterAccount['provider'],
  ): Awaitable<AdapterAccount | null>;
  /** The authenticator with this credential id (standard base64), or `null`. */
  getAuthenticator?(credentialID: AdapterAuthenticator['credentialID']): Awaitable<AdapterAuthenticator | null>;
  /** Stores an authenticator; must throw on failure. */
  createAuthenticator?(authenticator: AdapterAuthenticator): Awaitable<AdapterAuthenticator>;
  /** The user's authenticators; `[]` for an unknown user. */
  listAuthenticatorsByUserId?(userId: AdapterAuthenticator['userId']): Awaitable<AdapterAuthenticator[]>;
  /** Sets the signature counter; must throw if the authenticator does not exist. */
  updateAuthenticatorCounter?(
    credentialID: AdapterAuthenticator['credentialID'],
    newCounter: AdapterAuthenticator['counter'],
  ): Awaitable<AdapterAuthenticator>;
  /**
   * authchart extension, absent from Auth.js adapters: sets the name of one of `userId`'s authenticators (the
   * account page's "Rename"). False when the user holds no authenticator with that id: another user's is untouched.
   *
   * @example
   * await adapter.renameAuthenticator?.(userId, credentialID, 'Work laptop') // true
   */
  renameAuthenticator?(userId: string, credentialID: string, name: string): Awaitable<boolean>;
  /**
   * authchart extension, absent from Auth.js adapters: deletes one of `userId`'s authenticators and its `webauthn`
   * account (the account page's "Remove"). False when the user holds no authenticator with that id. The caller
   * checks the last-method rule first.
   *
   * @example
   * await adapter.deleteAuthenticator?.(userId, credentialID) // true
   */
  deleteAuthenticator?(userId: string, credentialID: string): Awaitable<boolean>;
  /**
   * authchart extension, absent from Auth.js adapters: runs `fn` with an adapter bound to one database
   * transaction, committed when `fn` resolves and rolled back when it throws. The flow layer uses it to create
   * a user and link its account atomically; without it, it falls back to compensating deletes. It also spends a
   * magic-link token and writes the session in one transaction, so an error answer never leaves a burnt link or a
   * session row nobody holds.
   *
   * `options.timeout` is what is left of the caller's deadline (ms): an adapter should have the database stop the
   * transaction's statements past it (PostgresAdapter: `SET LOCAL statement_timeout`, `lock_timeout`,
   * `idle_in_transaction_session_timeout`). After `fn` resolves, the caller waits for the COMMIT's own answer.
   *
   * @example
   * await adapter.withTransaction?.(async (tx) => {
   *   const user = await tx.createUser!(newUser);
   *   await tx.linkAccount!({ ...account, userId: user.id });
   * });
   */
  withTransaction?<T>(fn: (tx: Adapter) => Promise<T>, options?: { timeout?: number }): Promise<T>;
  /**
   * authchart extension, absent from Auth.js adapters: called inside {@link Adapter.withTransaction}, holds the
   * user's row until the transaction ends (PostgresAdapter: `SELECT … FOR UPDATE`). Unlink takes it before it counts
   * the user's sign-in methods, so two removals at once cannot each see "one left" and together leave none. Without
   * it (or without `withTransaction`), removals of one user run one at a time in this process and each re-counts
   * after its delete, putting the method back when none remain.
   *
   * @example
   * await adapter.withTransaction?.(async (tx) => {
   *   await tx.lockUser?.(userId);
   *   // count the user's sign-in methods, then remove one
   * });
   */
  lockUser?(userId: string): Awaitable<void>;
  /**
   * authchart extension, absent from Auth.js adapters: deletes what can never be used again (expired magic-link
   * tokens and WebAuthn challenge rows, expired sessions, lapsed throttle counters) and says how many of each.
   * authchart calls it now and then from sign-in requests (at most every `pruneInterval`); call it from a job too.
   *
   * @example
   * const { verificationTokens, sessions } = await adapter.prune?.() ?? {};
   */
  prune?(options?: PruneOptions): Awaitable<PruneResult>;
  /**
   * authchart extension (session control), absent from Auth.js adapters: the user's unexpired database sessions,
   * newest first. With it, `createSession` also receives `createdAt`, `userAgent` and `ipAddress`, and
   * `updateSession` a `lastSeenAt`, to store beside the row. `sessionToken` is the stored (hashed) token.
   *
   * @example
   * const sessions = await adapter.listSessions?.(user.id);
   */
  listSessions?(userId: string): Awaitable<SessionRecord[]>;
  /**
   * authchart extension (session control): deletes every session of the user except the one whose stored token is
   * `except`, and returns how many went.
   *
   * @example
   * await adapter.deleteSessions?.(user.id, { except: currentStoredToken });
   */
  deleteSessions?(userId: string, options?: { except?: string }): Awaitable<number>;
  /**
   * authchart extension (JWT sessions ended by "sign out everywhere"): the user's "sessions valid after" time, or
   * null when never set. A JWT session started before it is refused at its next refresh (`updateAge`).
   *
   * @example
   * const after = await adapter.getSessionsValidAfter?.(user.id);
   */
  getSessionsValidAfter?(userId: string): Awaitable<Date | null>;
  /**
   * authchart extension: sets the user's "sessions valid after" time (see {@link Adapter.getSessionsValidAfter}),
   * never moving it back. `keepUntil` (`at` + `jwt.maxAge`) is when every token that began before `at` has
   * expired: after it the row may be pruned.
   *
   * @example
   * await adapter.setSessionsValidAfter?.(user.id, new Date(), new Date(Date.now() + 30 * 86400_000));
   */
  setSessionsValidAfter?(userId: string, at: Date, keepUntil?: Date): Awaitable<void>;
  /**
   * authchart extension (provider token refresh): the user's account with `provider`, or null.
   *
   * @example
   * const github = await adapter.getUserAccount?.(user.id, 'github');
   */
  getUserAccount?(userId: string, provider: string): Awaitable<AdapterAccount | null>;
  /**
   * authchart extension (provider token refresh, see {@link TokenRefreshState}): takes the account's refresh lock
   * for `holder` until `until` unless another holder has it and it has not lapsed, atomically across instances.
   * Returns whether it was taken and the account and refresh state as they are now.
   */
  claimTokenRefresh?(key: AccountKey, holder: string, until: Date): Awaitable<TokenRefreshState & { claimed: boolean }>;
  /** authchart extension: the account and its refresh state as they are now (for a caller waiting on another's refresh). */
  readTokenRefresh?(key: AccountKey): Awaitable<TokenRefreshState>;
  /**
   * authchart extension: ends `holder`'s refresh. `rotated`: stores the new tokens (a field left out keeps its
   * value), remembers the refresh token they replace (its SHA-256) and when. `failed`: marks the refresh as
   * refused, and every session of the account's user with `error: 'RefreshTokenError'`. `released`: nothing
   * else. Each releases the lock (if still `holder`'s).
   */
  finishTokenRefresh?(key: AccountKey, holder: string, outcome: TokenRefreshOutcome): Awaitable<void>;
  /**
   * authchart extension (back-channel logout): the ids of the users a provider's logout names: those who signed in
   * with the OP session `sid` (recorded from the ID token's `sid` when the account's tokens are stored), and the
   * owner of the account `sub`. Both given: users matching both.
   */
  findProviderSessionUsers?(provider: string, match: { sid?: string; sub?: string }): Awaitable<string[]>;
  /**
   * authchart extension (back-channel logout): records a logout token's `jti` as used until `expires`; false when
   * it was already used (a replay), atomically across instances.
   */
  useLogoutToken?(issuer: string, jti: string, expires: Date): Awaitable<boolean>;
  /**
   * authchart extension (the flow store, `deps.store`): stores or replaces `value` under `key` until `expires`.
   * With all five flow-store methods (set, get, take, add, increment), authchart keeps flow state in the database by itself (shared by instances).
   *
   * @example
   * await adapter.setFlowValue?.('flow:device:ABCD', '{"approved":false}', new Date(Date.now() + 600_000));
   */
  setFlowValue?(key: string, value: string, expires: Date): Awaitable<void>;
  /** authchart extension (the flow store): the entry under `key`, expired or not, or null. */
  getFlowValue?(key: string): Awaitable<{ value: string; expires: Date } | null>;
  /**
   * authchart extension (the flow store): returns **and deletes** the entry under `key`, or null. Must be atomic:
   * of two concurrent calls, at most one gets the entry.
   */
  takeFlowValue?(key: string): Awaitable<{ value: string; expires: Date } | null>;
  /**
   * authchart extension (the flow store): stores `value` under `key` until `expires` unless an entry live at `now` is
   * there (an expired one is replaced); true when it stored. Must be atomic: of concurrent calls, exactly one stores.
   */
  addFlowValue?(key: string, value: string, expires: Date, now: Date): Awaitable<boolean>;
  /**
   * authchart extension (the flow store): adds one to the counter under `key` (its value is the count as text) and
   * returns the new count. Absent or expired at `now`: starts at 1 until `expires`; live: keeps its expiry. Must be
   * atomic: concurrent calls each get a different count.
   */
  incrementFlowValue?(key: string, expires: Date, now: Date): Awaitable<number>;
  /**
   * authchart extension (the Password provider): the user's password hash (a PHC string such as `$argon2id$…`, or a
   * hash imported from an earlier system, such as bcrypt's `$2b$…`), or null when the user has no password.
   *
   * @example
   * const hash = await adapter.getPasswordHash?.(user.id);
   */
  getPasswordHash?(userId: string): Awaitable<string | null>;
  /**
   * authchart extension (the Password provider): stores the user's password hash, replacing any. With `expected`,
   * atomically and only while the stored hash is still `expected` (a hash upgraded at sign-in never undoes a password
   * change made meanwhile). Returns whether it was written.
   *
   * @example
   * await adapter.setPasswordHash?.(user.id, await hashNewPassword(password));
   */
  setPasswordHash?(userId: string, hash: string, expected?: string): Awaitable<boolean>;
}

/** An account and the state of its provider-token refresh, as {@link Adapter.readTokenRefresh} returns it. */
export interface TokenRefreshState {
  account: AdapterAccount | null;
  /** Until when another holder has the refresh lock; null when nobody does. */
  lockedUntil: Date | null;
  /** When the tokens were last rotated, and the SHA-256 (hex) of the refresh token that rotation replaced. */
  rotatedAt: Date | null;
  previousRefreshTokenHash: string | null;
  /** When the provider last refused a refresh (cleared by the next successful one). */
  failedAt: Date | null;
}

/** How a refresh ended, for {@link Adapter.finishTokenRefresh}. */
export type TokenRefreshOutcome =
  /** `previousRefreshTokenHash` null: a new sign-in replaced the tokens (there is no refresh token to remember). */
  | { rotated: Partial<Pick<AdapterAccount, 'access_token' | 'refresh_token' | 'id_token' | 'expires_at' | 'scope' | 'token_type'>>; previousRefreshTokenHash: string | null }
  | { failed: true; userId: string }
  /** Nothing changed (the holder found the tokens already rotated, or could not reach the provider). */
  | { released: true };

/** A database session as session control shows it. */
export interface SessionRecord extends AdapterSession {
  createdAt?: Date | null;
  lastSeenAt?: Date | null;
  userAgent?: string | null;
  ipAddress?: string | null;
}

/** What {@link Adapter.prune} is asked to delete beyond expired rows. */
export interface PruneOptions {
  /** Activity records older than this are deleted (the configured `activity.retention`). */
  activityBefore?: Date;
}

/** What {@link Adapter.prune} deleted, per kind of row. */
export interface PruneResult {
  verificationTokens: number;
  sessions: number;
  throttle: number;
  /** Attempt counts of second-factor checks whose 10 minutes have passed. */
  factorChallenges?: number;
  /** "Sessions valid after" times past their `keepUntil` (every token they could end has expired). */
  sessionsValidAfter?: number;
  /** Expired flow store entries. */
  flowStore?: number;
  /** Webhook deliveries delivered more than a week ago. */
  webhookDeliveries?: number;
  /** Activity records past their retention. */
  activity?: number;
}

/** authchart's optional extensions of the Auth.js contract: used when an adapter has them, never required. */
export type AdapterExtension = 'sessionFacts' | 'appendActivity' | 'createSessionWithActivity' | 'listActivity' | 'withTransaction' | 'lockUser' | 'getVerificationToken' | 'prune' | 'listSessions' | 'deleteSessions' | 'getSessionsValidAfter' | 'setSessionsValidAfter' | 'getUserAccount' | 'claimTokenRefresh' | 'readTokenRefresh' | 'finishTokenRefresh' | 'findProviderSessionUsers' | 'useLogoutToken' | 'setFlowValue' | 'getFlowValue' | 'takeFlowValue' | 'addFlowValue' | 'incrementFlowValue' | 'getPasswordHash' | 'setPasswordHash' | 'renameAuthenticator' | 'deleteAuthenticator' | keyof FactorAdapterMethods | keyof OrganizationAdapterMethods | keyof SsoAdapterMethods | keyof WebhookAdapterMethods | keyof InvitationAdapterMethods;

/** Names of the data methods of {@link Adapter} (everything except authchart's extensions). */
export type AdapterMethod = Exclude<keyof Adapter, AdapterExtension>;

/** Every data method of the contract, in the order of the reference table. */
export const adapterMethods = [
  'createUser',
  'getUser',
  'getUserByEmail',
  'getUserByAccount',
  'updateUser',
  'deleteUser',
  'linkAccount',
  'unlinkAccount',
  'createSession',
  'getSessionAndUser',
  'updateSession',
  'deleteSession',
  'createVerificationToken',
  'useVerificationToken',
  'getAccount',
  'getAuthenticator',
  'createAuthenticator',
  'listAuthenticatorsByUserId',
  'updateAuthenticatorCounter',
] as const satisfies readonly AdapterMethod[];
