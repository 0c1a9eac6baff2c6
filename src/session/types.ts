// What the two session strategies implement, apart from the dispatcher that picks one (strategy.ts).
import type { Account, AdapterUser, AuthMethod, JWT, Profile, Session, SessionVerification, User } from '../core/types.js';
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import type { WrappedAdapter } from '../core/adapter-wrap.js';
import type { AdapterMembership } from '../core/organizations.js';
import type { ActivityRecord } from '../activity/types.js';

/**
 * The activity records of the sign-in a session is issued for, handed to a strategy that can write them with its
 * row (database sessions on an adapter with `createSessionWithActivity`): it sets `written` to the records it wrote.
 */
export interface IssueActivity {
  records(): Promise<ActivityRecord[]>;
  written?: ActivityRecord[];
}

/** What a successful sign-in hands to the session layer. */
export interface SignInResult {
  user: User | AdapterUser;
  account: Account | null;
  profile?: Profile;
  isNewUser?: boolean;
  /** When and how the user proved who they are (JWT: `auth_time` and `amr` claims; database: the row). */
  verification?: SessionVerification;
}

/** The signed-in user of a request and when/how their session was last verified (null: unknown, e.g. an old session). */
export interface VerifiedSession {
  userId: string;
  verification: SessionVerification | null;
  /** JWT sessions: the live token as it was opened, for a caller in the same request that needs its claims. */
  token?: JWT;
  /** The session's active organization as it was switched to (membership is the organization gate's check), if any. */
  organizationId?: string;
  /**
   * The membership in `organizationId`, when the session's own read brought it (an adapter whose `getSessionAndUser`
   * joins it: one statement, as fresh as a read of its own): null when the user is not a member. Absent otherwise,
   * and the organization gate reads it.
   */
  membership?: AdapterMembership | null;
}

export interface SessionStrategyImpl {
  /**
   * The request's live session, for the session gate (gate.ts) only: expiry and revocation applied (a database row
   * that is gone or expired, a JWT ended by "sessions valid after"), an Auth.js session moved over. Null when nobody
   * is signed in; throws when the store cannot say.
   */
  open(req: AuthRequest): Promise<VerifiedSession | null>;
  /**
   * The session for this request's cookie, or null; refreshes the cookie when due. Never throws. Built on `open`.
   * A plain value when it is known at once (a JWT session check mostly is), else a promise.
   */
  read(req: AuthRequest): Session | null | Promise<Session | null>;
  /**
   * Writes a new session for a signed-in user. Throws AccessDenied when the jwt callback refuses. With `tx` (a
   * transaction the caller commits), every store write goes through it, and what must wait until the commit
   * (ending the session this browser held before) comes back as a function to call after it.
   */
  issue(req: AuthRequest, result: SignInResult, tx?: WrappedAdapter, activity?: IssueActivity): Promise<void | (() => Promise<void>)>;
  /** Applies a client update (`POST session`, `unstable_update`) and returns the new session. */
  update(req: AuthRequest, data: unknown): Promise<Session | null>;
  /** Ends the session: cookie cleared, row deleted, `signOut` event. Never throws. */
  signOut(req: AuthRequest): Promise<void>;
  /** Records a factor check just passed by the session's user (step-up): verified now, `method` added. False: no session. */
  reverify(req: AuthRequest, method: AuthMethod): Promise<boolean>;
  /** Sets (or with null clears) the session's active organization; the caller checked the membership. False: no session. */
  setOrganization(req: AuthRequest, organizationId: string | null): Promise<boolean>;
}
