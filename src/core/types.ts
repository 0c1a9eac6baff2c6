// The resources of the spec (User, Account, Session, Profile, JWT) shared by every layer.

export type Awaitable<T> = T | PromiseLike<T>;

export type ProviderType = 'oidc' | 'oauth' | 'email' | 'credentials' | 'webauthn';

/** A user as a provider's `profile` callback returns it. */
export interface User {
  id?: string;
  name?: string | null;
  email?: string | null;
  image?: string | null;
  [key: string]: unknown;
}

/** A user as an adapter stores it. */
export interface AdapterUser extends User {
  id: string;
  /** Null for a user who signed up without an address (a phone number, a passkey alone). */
  email: string | null;
  emailVerified: Date | null;
}

/** Token endpoint response fields kept on an account. */
export interface TokenSet {
  access_token?: string;
  id_token?: string;
  refresh_token?: string;
  expires_in?: number;
  expires_at?: number;
  scope?: string;
  token_type?: string;
  session_state?: string;
  authorization_details?: unknown[];
  [key: string]: unknown;
}

/** A provider account linked to a user. */
export interface Account extends TokenSet {
  provider: string;
  providerAccountId: string;
  /** The provider's type: a built-in one, or a custom provider's own (the sign-in tail links those by the OAuth rules). */
  type: ProviderType | (string & {});
  userId?: string;
}

/** User info from an OAuth/OIDC provider: the standard OIDC claims (OpenID Connect Core 5.1), plus anything else. */
export interface Profile {
  id?: string | null;
  sub?: string | null;
  name?: string | null;
  given_name?: string | null;
  family_name?: string | null;
  middle_name?: string | null;
  nickname?: string | null;
  preferred_username?: string | null;
  /** The URL of the user's profile page. */
  profile?: string | null;
  /** Usually a URL; some providers send an object. */
  picture?: any;
  website?: string | null;
  email?: string | null;
  email_verified?: boolean | null;
  gender?: string | null;
  /** `YYYY-MM-DD` (or `YYYY`, `0000-MM-DD`). */
  birthdate?: string | null;
  /** An IANA time zone, e.g. `Europe/Paris`. */
  zoneinfo?: string | null;
  /** A BCP 47 language tag, e.g. `en-US`. */
  locale?: string | null;
  phone_number?: string | null;
  /** When the claims last changed: seconds since the epoch in OIDC; some providers send a date string. */
  updated_at?: Date | string | number | null;
  address?: {
    formatted?: string | null;
    street_address?: string | null;
    locality?: string | null;
    region?: string | null;
    postal_code?: string | null;
    country?: string | null;
  } | null;
  [claim: string]: unknown;
}

/** The session shape exposed to the client. */
export interface Session {
  user?: User;
  expires: string;
  [key: string]: unknown;
}

/** The decoded payload of a JWT session cookie. */
export interface JWT {
  name?: string | null;
  email?: string | null;
  picture?: string | null;
  sub?: string;
  iat?: number;
  exp?: number;
  jti?: string;
  /** When the user last proved who they are (seconds), set at sign-in and by a factor check (step-up). */
  auth_time?: number;
  /** How they proved it, RFC 8176 style: see {@link AuthMethod}. */
  amr?: AuthMethod[];
  /**
   * When this session began (seconds), kept through refreshes: compared with the user's "sessions valid after"
   * time at each refresh. Moved to now for the session that ends the others (revokeOtherSessions).
   */
  session_iat?: number;
  [claim: string]: unknown;
}

/**
 * How a user proved who they are, after RFC 8176's `amr` values: `pwd` a password (credentials), `otp` a one-time
 * code (authenticator app or backup code), `hwk` a passkey, `email` a magic link, `oauth` an OAuth/OIDC provider.
 */
export type AuthMethod = 'pwd' | 'otp' | 'hwk' | 'email' | 'oauth';

/** When and how a session was last verified (sign-in, or a later factor check). */
export interface SessionVerification {
  /** When, as a Date. */
  authTime: Date;
  /** How, first factor first. */
  amr: AuthMethod[];
}

/** A database session row. */
export interface AdapterSession {
  sessionToken: string;
  userId: string;
  expires: Date;
  /** When the user last proved who they are in this session (authchart extension; adapters may omit it). */
  authTime?: Date | null;
  /** How (see {@link AuthMethod}); stored with authTime. */
  amr?: AuthMethod[] | null;
  /** authchart extension: `'RefreshTokenError'` once a provider refused to refresh the user's tokens. */
  error?: string | null;
  /**
   * authchart extension (organizations): the session's active organization, written by `updateSession` (null clears
   * it) and returned by `getSessionAndUser`. Membership is checked on every read; this only says which one.
   */
  organizationId?: string | null;
}

export interface VerificationToken {
  identifier: string;
  token: string;
  expires: Date;
}

export interface AdapterAccount extends Account {
  userId: string;
  /** authchart extension: when the account was linked (PostgresAdapter stores it; absent or null: not known). */
  linkedAt?: Date | null;
}

export interface AdapterAuthenticator {
  userId: string;
  providerAccountId: string;
  counter: number;
  credentialBackedUp: boolean;
  /** Standard base64 of the credential id. */
  credentialID: string;
  /** Standard base64 of the public key. */
  credentialPublicKey: string;
  /** Comma-separated transports, e.g. "usb,nfc". */
  transports?: string | null;
  credentialDeviceType: string;
  /** authchart extension: the name its owner gave it on the account page; absent or null: none yet. */
  name?: string | null;
  /** authchart extension: when it was registered (PostgresAdapter stores it). */
  createdAt?: Date | null;
  /** authchart extension: when it last signed in (set with the counter). */
  lastUsedAt?: Date | null;
  /**
   * authchart extension: the AAGUID the authenticator reported at registration (lowercase; absent or null: none
   * reported), which names the passkey provider on the account page.
   */
  aaguid?: string | null;
}

/** What `jwt.encode` receives (the built-in codec and a custom one alike). */
export interface JWTEncodeParams<Payload extends object = JWT> {
  /** The claims to seal; `iat`, `exp` and `jti` are set on every encode. */
  token?: Payload;
  /** One secret, or several for rotation: the first encrypts, any decrypts. */
  secret: string | string[];
  /** Key-derivation salt: the name of the cookie the token goes into. */
  salt: string;
  /** Lifetime in seconds; defaults to the session max age (30 days). */
  maxAge?: number;
}

export interface JWTDecodeParams {
  /** The compact JWE; empty or missing decodes to `null`. */
  token?: string;
  secret: string | string[];
  salt: string;
}
