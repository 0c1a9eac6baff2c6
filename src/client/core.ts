// The browser client's calls to authchart's HTTP routes: session, providers, CSRF token, sign-in, sign-out and
// session update. Framework-free and dependency-free: it speaks only the HTTP API, never imports server code.

/** The signed-in user as the session route shows it (what the `session` callback returned). */
export interface ClientUser {
  id?: string;
  name?: string | null;
  email?: string | null;
  image?: string | null;
  [key: string]: unknown;
}

/** A session as `GET {basePath}/session` answers it. */
export interface ClientSession {
  user?: ClientUser;
  expires: string;
  /**
   * `'RefreshTokenError'` when a provider refused to refresh the user's tokens (revoked grant, reused or expired
   * refresh token): calls to that provider's API will fail until the user signs in with it again.
   *
   * @example
   * if (session?.error === 'RefreshTokenError') signIn('github')
   */
  error?: string;
  [key: string]: unknown;
}

/** A provider as `GET {basePath}/providers` lists it. */
export interface ClientProvider {
  id: string;
  name: string;
  type: string;
  signinUrl: string;
  callbackUrl: string;
}

/** Options of {@link signIn}; any other string field is posted with the form (`email`, `password`, ...). */
export interface SignInOptions {
  /** Default true: the browser goes where the server says. False: credentials and e-mail sign-ins resolve to a result. */
  redirect?: boolean;
  /** Where to land after signing in (default: `callbackUrl`, else the current page). */
  redirectTo?: string;
  /** next-auth's name for `redirectTo`, honoured as next-auth v5's client does (`redirectTo` wins when both are set). */
  callbackUrl?: string;
  [field: string]: unknown;
}

/**
 * What a sign-in that did not navigate resolved to. `ok` is true only when the server signed the user in (or
 * sent the e-mail): unlike Auth.js's client, a refused password is `ok: false` with `error: 'CredentialsSignin'`.
 */
export interface SignInResult {
  ok: boolean;
  status: number;
  /** The error type (`CredentialsSignin`, `AccessDenied`, `RateLimited`, ...), or null. */
  error: string | null;
  /** The `code` a CredentialsSignin carries, or null. */
  code: string | null;
  /** Where the server would send the browser (null on error). */
  url: string | null;
}

/** Options of {@link signOut}. */
export interface SignOutOptions {
  /** Default true: the browser goes to the page the server answers. */
  redirect?: boolean;
  /** Where to land after signing out (default: `callbackUrl`, else the current page). */
  redirectTo?: string;
  /** next-auth's name for `redirectTo`, honoured as next-auth v5's client does. */
  callbackUrl?: string;
}

/** An answer the client cannot use: a failed request, an unknown provider. `type` names what went wrong. */
export class AuthClientError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'AuthClientError';
  }
}

/** What a tab tells the others (and its own stores) when its session changed. */
export interface SessionMessage {
  event: 'session';
  trigger: 'signin' | 'signout' | 'update';
}

const settings = { basePath: '/auth' };

/**
 * Where authchart's routes are mounted on this site, when not at `/auth` (e.g. `/api/auth` for `AuthInit`).
 *
 * @example
 * configure({ basePath: '/api/auth' })
 */
export function configure(options: { basePath?: string }): void {
  if (options.basePath) settings.basePath = options.basePath.replace(/\/+$/, '');
}

/** The configured base path (for the session store and the passkey helpers). */
export const basePath = (): string => settings.basePath;

/** The channel every tab's stores listen on, named after the base path. */
export const channelName = (): string => `authchart:${settings.basePath}`;

let channel: BroadcastChannel | undefined;

/** Tells every store, in this tab and the others, that the session changed. */
export function broadcast(trigger: SessionMessage['trigger']): void {
  if (typeof BroadcastChannel !== 'function') return;
  // A stored channel object does not hear its own messages: the stores listen on channels of their own.
  (channel ??= new BroadcastChannel(channelName())).postMessage({ event: 'session', trigger } satisfies SessionMessage);
}

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(settings.basePath + path, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new AuthClientError('FetchError', `GET ${settings.basePath}${path} answered ${res.status}.`, res.status);
  return (await res.json()) as T;
}

/**
 * The current session, or null when nobody is signed in. Throws {@link AuthClientError} when the server cannot
 * answer, so "signed out" and "server down" stay apart.
 *
 * @example
 * const session = await getSession(); if (session) greet(session.user?.name)
 */
export async function getSession(): Promise<ClientSession | null> {
  const session = await getJson<ClientSession | null>('/session');
  return session && Object.keys(session).length ? session : null;
}

/**
 * The configured providers by id.
 *
 * @example
 * const providers = await getProviders(); for (const p of Object.values(providers)) addButton(p.name, () => signIn(p.id))
 */
export function getProviders(): Promise<Record<string, ClientProvider>> {
  return getJson('/providers');
}

/**
 * A CSRF token for a form of your own that posts to authchart (its cookie is set along).
 *
 * @example
 * form.elements.csrfToken.value = await getCsrfToken()
 */
export async function getCsrfToken(): Promise<string> {
  return (await getJson<{ csrfToken: string }>('/csrf')).csrfToken;
}

/** Goes where the server said; a URL differing only in its hash does not navigate, so the page reloads. */
export function navigate(url: string): void {
  window.location.assign(url);
  if (url.includes('#')) window.location.reload();
}

/** A post's result, and where the server would send the browser (its error page on failure). */
export interface Posted {
  result: SignInResult;
  to: string | null;
}

/**
 * Posts a form to one of authchart's routes, asking for the redirect as data (`X-Auth-Return-Redirect`), and
 * reads where the server would send the browser and the error that URL (or the body) names.
 */
export async function postForm(url: string, fields: Record<string, string>): Promise<Posted> {
  const body = new URLSearchParams({ ...fields, csrfToken: await getCsrfToken() });
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-auth-return-redirect': '1' }, body });
  const data = (await res.json().catch(() => ({}))) as { url?: string; error?: string };
  const target = typeof data.url === 'string' ? new URL(data.url, window.location.href) : null;
  const error = data.error ?? target?.searchParams.get('error') ?? (res.ok ? null : 'FetchError');
  const result = { ok: res.ok && !error, status: res.status, error, code: error ? target?.searchParams.get('code') ?? null : null, url: error ? null : target?.href ?? null };
  return { result, to: target?.href ?? null };
}

/** Tells the stores of a success, then navigates where the server said (the error page on failure) when asked. */
export function settle({ result, to }: Posted, redirect: boolean, trigger: SessionMessage['trigger']): SignInResult {
  if (result.ok) broadcast(trigger);
  if (redirect && to) navigate(to);
  return result;
}

const fieldsOf = (options: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(options).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));

/**
 * Signs in with a provider. OAuth and OIDC always leave for the provider; credentials and e-mail post by `fetch`
 * and, with `redirect: false`, resolve to `{ ok, error, code, url }` instead of navigating. Without a provider id,
 * goes to the sign-in page.
 *
 * @example
 * const result = await signIn('credentials', { email, password, redirect: false })
 * if (!result.ok) show(result.error === 'CredentialsSignin' ? 'Wrong e-mail or password.' : 'Try again later.')
 * await signIn('github') // leaves for GitHub, back to this page
 * await signIn('sso', { email: 'ada@acme.example' }) // leaves for Acme's identity provider (enterprise SSO)
 */
export async function signIn(providerId?: string, options: SignInOptions = {}, authorizationParams?: Record<string, string>): Promise<SignInResult> {
  // `callbackUrl` is never posted as a field of its own: it is where to land, like `redirectTo`.
  const { redirect = true, callbackUrl, redirectTo = callbackUrl ?? window.location.href, ...fields } = options;
  if (!providerId) {
    const url = `${settings.basePath}/signin?callbackUrl=${encodeURIComponent(redirectTo)}`;
    navigate(url);
    return { ok: true, status: 200, error: null, code: null, url };
  }
  const provider = (await getProviders())[providerId];
  // "Continue with SSO" (the `sso` option): the work address picks the organization's IdP, where the browser goes;
  // an address with no SSO resolves to `{ ok: false, error: 'SsoNotFound' }` and stays.
  if (!provider && providerId === 'sso') return settle(await postForm(`${settings.basePath}/sso`, { ...fieldsOf(fields), callbackUrl: redirectTo }), redirect, 'signin');
  if (!provider) throw new AuthClientError('InvalidProvider', `No provider with id "${providerId}".`);
  const returns = provider.type === 'credentials' || provider.type === 'email';
  const query = authorizationParams ? `?${new URLSearchParams(authorizationParams)}` : '';
  const url = provider.type === 'credentials' ? provider.callbackUrl : provider.signinUrl + query;
  return settle(await postForm(url, { ...fieldsOf(fields), callbackUrl: redirectTo }), redirect || !returns, 'signin');
}

/**
 * Signs out (CSRF-protected `POST {basePath}/signout`), tells the other tabs, and goes to the page the server
 * answers unless `redirect: false`.
 *
 * @example
 * await signOut({ redirectTo: '/' })
 * const { url } = await signOut({ redirect: false }) // stay, the stores follow
 */
export async function signOut(options: SignOutOptions = {}): Promise<{ url: string | null }> {
  const { result, to } = await postForm(`${settings.basePath}/signout`, { callbackUrl: options.redirectTo ?? options.callbackUrl ?? window.location.href });
  // Signing out from a broken session is still signing out: every tab looks again.
  broadcast('signout');
  if ((options.redirect ?? true) && to) navigate(to);
  return { url: result.url };
}

/**
 * Updates the session through the `jwt`/`session` callbacks (`trigger: 'update'`) and tells the other tabs.
 * Resolves to the new session, or null when nobody is signed in.
 *
 * @example
 * await updateSession({ user: { name: form.name.value } })
 */
export async function updateSession(data: unknown): Promise<ClientSession | null> {
  const res = await fetch(`${settings.basePath}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ csrfToken: await getCsrfToken(), data }),
  });
  if (!res.ok) throw new AuthClientError('FetchError', `POST ${settings.basePath}/session answered ${res.status}.`, res.status);
  const session = (await res.json()) as ClientSession | null;
  broadcast('update');
  return session;
}
