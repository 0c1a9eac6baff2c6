// The ids of the built-in providers as type unions (Auth.js's BuiltInProviderType, RedirectableProviderType and
// OAuthProviderType), so `signIn('github')` and configuration data are checked and completed by an editor.
import type { OAuthProviderId } from './catalogue/index.js';

export type { OAuthProviderId };

/** Auth.js's name for {@link OAuthProviderId}: every OAuth/OIDC preset's id. */
export type OAuthProviderType = OAuthProviderId;

export type CredentialsProviderId = 'credentials';

/**
 * The e-mail providers' ids: `Email`, `Nodemailer`, and the HTTP API senders. Listed by hand (each factory names its
 * id in its own file); test/core/provider-types.test.ts fails when a sender is added without its id here.
 */
export type EmailProviderId = 'email' | 'nodemailer' | 'resend' | 'sendgrid' | 'postmark' | 'mailgun' | 'forwardemail' | 'loops';

export type WebAuthnProviderId = 'webauthn' | 'passkey';

/**
 * Providers whose sign-in stays on the site (credentials, e-mail), so `signIn(id, { redirect: false })` finishes
 * with a URL on this site rather than a provider's page.
 *
 * @example
 * const url = await signIn('credentials' satisfies RedirectableProviderType, { ...form, redirect: false })
 */
export type RedirectableProviderType = CredentialsProviderId | EmailProviderId;

/**
 * The id of every built-in provider.
 *
 * @example
 * const enabled: BuiltInProviderType[] = ['github', 'credentials', 'passkey']
 */
export type BuiltInProviderType = RedirectableProviderType | OAuthProviderId | WebAuthnProviderId;

/** A provider id: a built-in one (which editors suggest) or a custom provider's own. */
export type ProviderId = BuiltInProviderType | (string & {});
