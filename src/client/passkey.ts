// Passkeys from a page of your own: the same ceremonies as the built-in sign-in page's script, on the browser's
// WebAuthn JSON helpers (no library): options from the server, the browser's dialog, the credential posted back.
import { AuthClientError, basePath, postForm, settle, type SignInResult } from './core.js';

/** Options of {@link registerPasskey} and {@link signInWithPasskey}. */
export interface PasskeyOptions {
  /** The WebAuthn provider's id (default `passkey`). */
  providerId?: string;
  /** Default true: the browser goes where the server says. False: resolve to the result. */
  redirect?: boolean;
  /** Where to land afterwards (default: the current page). */
  redirectTo?: string;
  /** Cancels the ceremony (e.g. a pending autofill request). */
  signal?: AbortSignal;
}

interface OptionsAnswer {
  action?: 'register' | 'authenticate';
  options?: unknown;
  url?: string;
  error?: string;
}

/** Whether this browser can run the ceremonies (WebAuthn with its JSON helpers). */
export function passkeysSupported(): boolean {
  // Older browsers have WebAuthn without the JSON helpers: the type says they are always there, they are not.
  const PKC = globalThis.PublicKeyCredential as Partial<typeof PublicKeyCredential> | undefined;
  return typeof PKC?.parseCreationOptionsFromJSON === 'function' && typeof PKC.parseRequestOptionsFromJSON === 'function' && Boolean(navigator.credentials);
}

async function ceremony(action: 'register' | 'authenticate', options: PasskeyOptions, email?: string, mediation?: CredentialMediationRequirement): Promise<SignInResult> {
  if (!passkeysSupported()) throw new AuthClientError('PasskeyUnsupported', 'This browser does not support passkeys.');
  const id = encodeURIComponent(options.providerId ?? 'passkey');
  const query = new URLSearchParams({ action });
  if (email) query.set('email', email);
  // The options request sets the flow cookie that holds the challenge; the callback below brings it back.
  const res = await fetch(`${basePath()}/webauthn-options/${id}?${query}`, { headers: { accept: 'application/json', 'x-auth-return-redirect': '1' }, signal: options.signal });
  const answer = (await res.json().catch(() => ({}))) as OptionsAnswer;
  if (!answer.options || !answer.action) {
    // A refusal comes as the URL of the error page, a malformed request as `{ error }`.
    const error = answer.error ?? (answer.url ? new URL(answer.url, window.location.href).searchParams.get('error') : null) ?? 'FetchError';
    return settle({ result: { ok: false, status: res.status, error, code: null, url: null }, to: answer.url ?? null }, options.redirect ?? true, 'signin');
  }
  const PKC = PublicKeyCredential;
  const credential = (
    answer.action === 'register'
      ? await navigator.credentials.create({ publicKey: PKC.parseCreationOptionsFromJSON(answer.options as PublicKeyCredentialCreationOptionsJSON), signal: options.signal })
      : await navigator.credentials.get({ publicKey: PKC.parseRequestOptionsFromJSON(answer.options as PublicKeyCredentialRequestOptionsJSON), mediation, signal: options.signal })
  ) as PublicKeyCredential | null;
  if (!credential) throw new AuthClientError('PasskeyCancelled', 'The browser returned no passkey.');
  const posted = await postForm(`${basePath()}/callback/${id}`, {
    action: answer.action,
    data: JSON.stringify(credential.toJSON()),
    callbackUrl: options.redirectTo ?? window.location.href,
  });
  return settle(posted, options.redirect ?? true, 'signin');
}

/**
 * Creates a passkey and signs in with it: added to the signed-in user's account, or for a new account (`email`
 * then only labels the passkey in the device's list: nobody verified it, so no account is bound to it). The browser's own errors (`NotAllowedError` when the user cancels) are thrown as they come.
 *
 * @example
 * const result = await registerPasskey({ email: 'ada@example.com', redirect: false })
 */
export function registerPasskey(options: PasskeyOptions & { email?: string } = {}): Promise<SignInResult> {
  return ceremony('register', options, options.email);
}

/**
 * Signs in with a passkey the device offers. `mediation: 'conditional'` waits for the user to pick one from an
 * input's autofill (`autocomplete="username webauthn"`); abort it with `signal` before another ceremony.
 *
 * @example
 * await signInWithPasskey({ redirectTo: '/dashboard' })
 */
export function signInWithPasskey(options: PasskeyOptions & { mediation?: CredentialMediationRequirement } = {}): Promise<SignInResult> {
  return ceremony('authenticate', options, undefined, options.mediation);
}
