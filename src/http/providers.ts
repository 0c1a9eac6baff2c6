// The public view of the configured providers: ids, names, types and their URLs on this origin.
import { BUILT_IN_TYPES } from '../core/config.js';
import { isPasswordProvider } from '../core/provider.js';
import type { PageFormField, PageProvider } from './pages/signin.js';
import type { AuthRequest } from './request.js';

export interface PublicProvider {
  id: string;
  name: string;
  type: string;
  signinUrl: string;
  callbackUrl: string;
}

function isFieldMap(value: unknown): value is Record<string, PageFormField> {
  return typeof value === 'object' && value !== null && Object.values(value).every((f) => typeof f === 'object' && f !== null);
}

/**
 * Whether `provider` is a Password provider whose sign-up can run: turned on, and its mails have a way out (its own
 * `signUp.send`, or an e-mail provider of the configuration). Otherwise it is neither linked nor routed.
 */
export function signUpOpen(req: AuthRequest, provider: AuthRequest['config']['providers'][number]): boolean {
  if (!isPasswordProvider(provider)) return false;
  const signUp = (provider.password as { signUp?: false | { send?: unknown } }).signUp;
  if (!signUp) return false;
  return typeof signUp.send === 'function' || req.config.providers.some((p) => p.type === 'email');
}

/** `GET {basePath}/providers` body and the sign-in page's list share this shape. */
export function publicProviders(req: AuthRequest): PageProvider[] {
  return req.config.providers.map((p) => ({
    id: p.id,
    name: p.name,
    type: p.type,
    signinUrl: `${req.authUrl}/signin/${p.id}`,
    callbackUrl: `${req.authUrl}/callback/${p.id}`,
    style: p.style as PageProvider['style'],
    credentials: p.type === 'credentials' ? (p.credentials as PageProvider['credentials']) : undefined,
    // A Password provider's form links to its recovery ("forgot your password?").
    ...(isPasswordProvider(p) ? { recoverUrl: `${req.authUrl}/recover/${encodeURIComponent(p.id)}` } : {}),
    enableConditionalUI: p.type === 'webauthn' ? Boolean(p.enableConditionalUI) : undefined,
    // A custom provider's inputs; built-in types render their own (WebAuthn's formFields are its passkey section's).
    formFields: BUILT_IN_TYPES.has(p.type) || !isFieldMap(p.formFields) ? undefined : p.formFields,
    ...(signUpOpen(req, p) ? { signUpUrl: `${req.authUrl}/signup/${p.id}` } : {}),
  }));
}

export function providersJson(req: AuthRequest): Record<string, PublicProvider> {
  const out: Record<string, PublicProvider> = {};
  for (const { id, name, type, signinUrl, callbackUrl } of publicProviders(req)) out[id] = { id, name, type, signinUrl, callbackUrl };
  return out;
}
