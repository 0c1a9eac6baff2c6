// The WebAuthn and Passkey providers: sign-in with a public-key credential held by the user's device, verified
// with `@simplewebauthn/server` (an optional peer dependency, loaded only when a ceremony runs).
import type { CredentialInput } from '../core/options.js';
import type { CommonProviderOptions } from '../core/provider.js';
import { lazy } from '../core/lazy.js';

/** The relying party (the website) a credential is bound to. */
export interface RelyingParty {
  /** The RP ID: a registrable domain, never an IP address. Default: the hostname of the request URL. */
  id: string;
  /** Shown by the authenticator. Default: the host of the request URL. */
  name: string;
  /** Origins a response may come from (the first one is the canonical one). Default: the request's origin. */
  origin: string | string[];
}

export type UserVerification = 'required' | 'preferred' | 'discouraged';

/** What `generateRegistrationOptions` may be told beyond what authchart fills in. */
export interface WebAuthnRegistrationOptions {
  authenticatorSelection?: {
    authenticatorAttachment?: 'platform' | 'cross-platform';
    residentKey?: 'discouraged' | 'preferred' | 'required';
    requireResidentKey?: boolean;
    userVerification?: UserVerification;
  };
  attestationType?: 'none' | 'direct' | 'enterprise';
  /** COSE algorithm ids, most preferred first. */
  supportedAlgorithmIDs?: number[];
}

/** What `generateAuthenticationOptions` may be told beyond what authchart fills in. */
export interface WebAuthnAuthenticationOptions {
  userVerification?: UserVerification;
}

/** A form field of the built-in sign-in page's passkey section (custom pages may render them). */
export type WebAuthnFormField = CredentialInput & { required?: boolean };

export interface WebAuthnConfig extends CommonProviderOptions {
  type: 'webauthn';
  /** Overrides of the relying party; any part left out comes from the request URL. */
  relyingParty?: Partial<RelyingParty>;
  /**
   * Offer this provider's passkeys in the browser's autofill (`mediation: 'conditional'`). At most one provider
   * may enable it, and it needs a form field whose `autocomplete` contains `webauthn`.
   */
  enableConditionalUI: boolean;
  formFields: Record<string, WebAuthnFormField>;
  /** How long a ceremony may take, in milliseconds; an older challenge is refused (InvalidCheck). */
  timeout: number;
  registrationOptions: WebAuthnRegistrationOptions;
  authenticationOptions: WebAuthnAuthenticationOptions;
  /**
   * Names of passkey providers by AAGUID (lowercase), shown on the account page beside each passkey; they add to and
   * override authchart's list of widely used providers.
   */
  authenticatorNames?: Record<string, string>;
}

export type WebAuthnUserConfig = Partial<Omit<WebAuthnConfig, 'type'>>;

/** Five minutes, as the WebAuthn specification recommends for a ceremony with user verification. */
export const DEFAULT_WEBAUTHN_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * Sign-in with WebAuthn credentials (security keys, platform authenticators, passkeys). Needs an adapter that
 * stores authenticators and `experimental: { enableWebAuthn: true }`.
 *
 * @example
 * const config = { adapter, experimental: { enableWebAuthn: true }, providers: [WebAuthn({ relyingParty: { name: 'My app' } })] }
 */
export function WebAuthn(options: WebAuthnUserConfig = {}): WebAuthnConfig {
  return {
    id: 'webauthn',
    name: 'WebAuthn',
    enableConditionalUI: true,
    formFields: { email: { label: 'Email', type: 'email', required: true, autocomplete: 'username webauthn' } },
    timeout: DEFAULT_WEBAUTHN_TIMEOUT_MS,
    ...options,
    registrationOptions: { attestationType: 'none', ...options.registrationOptions },
    authenticationOptions: { ...options.authenticationOptions },
    type: 'webauthn',
  };
}

/**
 * Passkeys: WebAuthn with discoverable (resident) credentials and user verification both required, so the
 * device alone identifies and verifies the user.
 *
 * @example
 * providers: [Passkey()]   // id "passkey"
 */
export function Passkey(options: WebAuthnUserConfig = {}): WebAuthnConfig {
  const selection = options.registrationOptions?.authenticatorSelection;
  return WebAuthn({
    id: 'passkey',
    name: 'Passkey',
    ...options,
    registrationOptions: {
      ...options.registrationOptions,
      authenticatorSelection: { ...selection, residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    },
    authenticationOptions: { ...options.authenticationOptions, userVerification: 'required' },
  });
}

/** The relying party for a request from `origin`: the provider's overrides, the rest from the URL. */
export function relyingPartyFor(provider: Pick<WebAuthnConfig, 'relyingParty'>, origin: string): RelyingParty {
  const url = new URL(origin);
  const rp = provider.relyingParty ?? {};
  return { id: rp.id ?? url.hostname, name: rp.name ?? url.host, origin: rp.origin ?? url.origin };
}

/** Whether a user-verification setting obliges the server to refuse responses without it. */
export const requiresUserVerification = (uv: UserVerification | undefined): boolean => uv === 'required';

export { assertConditionalUI as assertWebAuthnProviders } from '../core/webauthn-config.js';

type SimpleWebAuthnServer = typeof import('@simplewebauthn/server');
/** `@simplewebauthn/server`, imported on first use so that apps without WebAuthn never need it installed. */
export const loadSimpleWebAuthn: () => Promise<SimpleWebAuthnServer> = lazy(() =>
  import('@simplewebauthn/server').catch((err: unknown) => {
    throw new Error('WebAuthn needs the optional peer dependency @simplewebauthn/server (v14): npm i @simplewebauthn/server', { cause: err });
  }),
);
