// The configuration object a user passes to authchart (spec section 2), as TypeScript types.
import type { Adapter } from '../adapters/types.js';
import type { CookieOption, CookiesOptions } from './cookies.js';
import type { Theme } from '../http/pages/theme.js';
import type { Account, AdapterSession, AdapterUser, Awaitable, JWT, Profile, Session, User } from './types.js';
import type { JWTDecodeParams, JWTEncodeParams } from '../session/jwt.js';
import type { AnyProvider } from '../providers/types.js';

/** Passing this as `skipCSRFCheck` disables the CSRF check. A named opt-out, never a boolean. */
export const skipCSRFCheck: unique symbol = Symbol('skip-csrf-check');

export type SessionStrategy = 'jwt' | 'database';

export interface JWTOptions {
  /** Seconds until the JWT expires; defaults to `session.maxAge`. */
  maxAge?: number;
  encode?: (params: JWTEncodeParams) => Awaitable<string>;
  decode?: (params: JWTDecodeParams) => Awaitable<JWT | null>;
}

export interface SessionOptions {
  strategy?: SessionStrategy;
  /** Idle expiry in seconds (default 30 days). */
  maxAge?: number;
  /** Seconds between session refreshes (default 1 day); 0 refreshes on every access. */
  updateAge?: number;
  /** Database strategy only: makes the token stored in the session cookie. */
  generateSessionToken?: () => string;
}

export interface PagesOptions {
  signIn: string;
  signOut: string;
  error: string;
  verifyRequest: string;
  newUser: string;
}

export type CredentialInput = { label?: string; type?: string; placeholder?: string; autocomplete?: string };

export interface SignInCallbackParams {
  user: User | AdapterUser;
  account: Account | null;
  profile?: Profile;
  email?: { verificationRequest?: boolean };
  credentials?: Record<string, unknown>;
}

export interface JWTCallbackParams {
  token: JWT;
  user?: User | AdapterUser;
  account?: Account | null;
  profile?: Profile;
  trigger?: 'signIn' | 'signUp' | 'update';
  /** @deprecated use `trigger === 'signUp'` */
  isNewUser?: boolean;
  /** Data the client sent with a session update (validate it!). */
  session?: unknown;
}

export interface SessionCallbackParams {
  session: Session;
  token?: JWT;
  user?: AdapterUser;
  newSession?: unknown;
  trigger?: 'update';
}

export interface CallbacksOptions {
  signIn?: (params: SignInCallbackParams) => Awaitable<boolean | string>;
  redirect?: (params: { url: string; baseUrl: string }) => Awaitable<string>;
  session?: (params: SessionCallbackParams) => Awaitable<Session | Record<string, unknown>>;
  jwt?: (params: JWTCallbackParams) => Awaitable<JWT | null>;
  /** Used by the middleware form of `auth`: false redirects to sign-in, a Response wins. */
  authorized?: (params: { auth: Session | null; request: Request }) => Awaitable<boolean | Response | undefined | void>;
}

export interface EventsOptions {
  signIn?: (message: { user: User; account: Account | null; profile?: Profile; isNewUser?: boolean }) => Awaitable<void>;
  signOut?: (message: { session?: AdapterSession | null; token?: JWT | null }) => Awaitable<void>;
  createUser?: (message: { user: User }) => Awaitable<void>;
  updateUser?: (message: { user: User }) => Awaitable<void>;
  linkAccount?: (message: { user: User | AdapterUser; account: Account; profile: User | AdapterUser }) => Awaitable<void>;
  session?: (message: { session: Session; token?: JWT }) => Awaitable<void>;
}

export interface LoggerInstance {
  error(error: Error): void;
  warn(code: string, message?: string): void;
  debug(message: string, metadata?: unknown): void;
}

/**
 * The configuration of authchart.
 *
 * @example
 * const config: AuthConfig = { secret: process.env.AUTH_SECRET, providers: [Credentials({ authorize })] }
 */
export interface AuthConfig {
  providers: AnyProvider[];
  adapter?: Adapter;
  basePath?: string;
  secret?: string | string[];
  session?: SessionOptions;
  jwt?: JWTOptions;
  callbacks?: CallbacksOptions;
  events?: EventsOptions;
  cookies?: Partial<Record<keyof CookiesOptions, Partial<CookieOption>>>;
  useSecureCookies?: boolean;
  pages?: Partial<PagesOptions>;
  theme?: Theme;
  logger?: Partial<LoggerInstance>;
  debug?: boolean;
  trustHost?: boolean;
  redirectProxyUrl?: string;
  skipCSRFCheck?: typeof skipCSRFCheck;
  experimental?: { enableWebAuthn?: boolean };
}

export type ServerAuthConfig = AuthConfig;
export type AuthInitConfig = AuthConfig;
