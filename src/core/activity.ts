// The security activity log as data (re-exported by src/activity/types.ts, where the flows and sinks import it): one record per security-relevant outcome of a flow or an account change, the
// adapter methods that keep records (an authchart extension of the Auth.js contract) and the sink interface through
// which records also leave the process (a stream, the webhook outbox). Records never hold secrets, codes or tokens.
import type { Awaitable } from './types.js';

/** What happened. Dotted `area.outcome` names; webhooks use them as the Standard Webhooks event `type`. */
export type ActivityKind =
  | 'signIn.succeeded'
  | 'signIn.failed'
  | 'signUp.completed'
  | 'secondFactor.passed'
  | 'secondFactor.failed'
  | 'factor.added'
  | 'factor.removed'
  | 'passkey.added'
  | 'passkey.removed'
  | 'session.ended'
  | 'account.linked'
  | 'account.unlinked'
  | 'password.changed'
  | 'email.changed'
  | 'recovery.requested'
  | 'recovery.completed'
  | 'organization.memberAdded'
  | 'organization.memberRemoved'
  | 'organization.roleChanged'
  | 'organization.invitationSent'
  | 'organization.invitationAccepted'
  | 'organization.invitationRevoked'
  | 'rateLimit.hit';

/** The machine transition that produced a record, when a flow machine did. */
export interface ActivityTransition {
  /** The machine's id (`oauth`, `password-signin`). */
  machine: string;
  /** The machine's version (the hash the flow cookie carries). */
  version: string;
  /** `source → target` state paths (`exchanging → signedIn`). */
  transition: string;
}

/** One security-relevant outcome. Append-only: a record is never changed once written. */
export interface ActivityRecord {
  /** Unique and stable (`act_…`): the webhook idempotency id (`webhook-id`). */
  id: string;
  kind: ActivityKind;
  at: Date;
  /** The user it concerns; null for a failure before anyone was identified. */
  userId: string | null;
  /** Who acted when not the user themselves (an admin removing a member, a session ended by another device). */
  actorId?: string | null;
  organizationId?: string | null;
  /** The provider id (`github`, `password`). */
  provider?: string | null;
  /** The sign-in method or factor (`oauth`, `email`, `credentials`, `webauthn`, `password`, `totp`, `backupCode`). */
  method?: string | null;
  /** Null for outcomes outside a machine (an admin API call). */
  flow?: ActivityTransition | null;
  /** SHA-256 (base64url) of the session id or JWT `jti`: which session, never the session itself. */
  sessionHash?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  /** Shared with the flow record, the trace and the OpenTelemetry span of the same request. */
  correlationId: string;
  /** For a failure or refusal: the error type (`CredentialsSignin`), never a message that could quote input. */
  reason?: string | null;
  /** Non-secret extras (`{ role: 'admin' }`). */
  detail?: Record<string, string | number | boolean | null>;
}

/** What {@link ActivityAdapterMethods.listActivity} and `listActivity(event, query)` select. */
export interface ActivityQuery {
  userId?: string;
  organizationId?: string;
  kinds?: ActivityKind[];
  since?: Date;
  /** The `cursor` of the previous page. */
  cursor?: string;
  /** At most this many (default 50, at most 200). */
  limit?: number;
}

/** One page of records, newest first, and the cursor of the next page (null at the end). */
export interface ActivityPage {
  records: ActivityRecord[];
  cursor: string | null;
}

/**
 * Adapter methods for the activity log. `appendActivity` is called on the transaction's adapter (`tx`) where the
 * outcome writes something (a session row, a password hash), so no sign-in exists without its record.
 */
export interface ActivityAdapterMethods {
  appendActivity(records: ActivityRecord[]): Awaitable<void>;
  listActivity(query: ActivityQuery): Awaitable<ActivityPage>;
  /**
   * Optional: a database session's row (as `createSession` gets it) and the records of the sign-in that made it,
   * written in one statement, inside the session's transaction (one round trip instead of two); returns what
   * `createSession` returns. Without it, the two are written one after the other.
   */
  createSessionWithActivity?(session: { sessionToken: string; userId: string; expires: Date }, records: ActivityRecord[]): Awaitable<unknown>;
}

/**
 * Where records go besides the adapter. `tx` is the transaction's adapter when the outcome has one: a sink that
 * writes to the same database (the webhook outbox) writes through it, so the record and its delivery commit
 * together. A sink that forwards elsewhere (a stream) ignores it and must not throw for a slow receiver.
 */
export interface ActivitySink {
  name: string;
  /**
   * The sink writes through `tx` into the outcome's own transaction (the webhook outbox): when it fails there, the
   * transaction fails with it, so no sign-in commits without what this sink owed it. Other sinks' failures are logged.
   */
  transactional?: boolean;
  write(records: readonly ActivityRecord[], tx?: unknown): Awaitable<void>;
}

/**
 * The activity of one run on a request (src/activity/run.ts): the correlation id it shares with the flow record and
 * the span (the flow id), the machine and version, the transition that settled it, and the records its stages queued.
 */
export interface ActivityRun {
  correlationId: string;
  flow?: { machine: string; version: string };
  provider?: string;
  /** `source → target` of the machine's last transition (or `→ state` when no trace was kept). */
  transition?: string;
  /** Records made during the run, not yet written. */
  pending: ActivityRecord[];
}
