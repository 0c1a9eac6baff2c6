// Every built-in provider factory: credentials, e-mail, generic OAuth/OIDC, and the catalogue presets.
export { Credentials, type CredentialsConfig, type CredentialsUserConfig } from './credentials.js';
export { OAuth, OIDC, definePreset, type OAuthConfig, type OIDCConfig, type OAuthUserConfig, type OIDCUserConfig, type OAuthProviderConfig } from './oauth.js';
export { Email, Nodemailer, normalizeEmailAddress, sendMagicLinkMail, type EmailConfig, type EmailUserConfig, type EmailServer, type SendVerificationRequestParams, type EmailCodeOptions } from './email.js';
// E-mail senders through vendors' HTTP APIs (Resend, SendGrid, Postmark, Mailgun, Forward Email, Loops).
export * from './email-senders/index.js';
// For a custom `normalizeIdentifier` or `authorize`: the one ASCII spelling of an address's domain.
export { asciiEmailDomain } from '../core/email-address.js';
export { WebAuthn, Passkey, type WebAuthnConfig, type WebAuthnUserConfig, type RelyingParty } from './webauthn.js';
export * from './catalogue/index.js';
export type {
  BuiltInProviderType, RedirectableProviderType, OAuthProviderType, OAuthProviderId, CredentialsProviderId, EmailProviderId, WebAuthnProviderId, ProviderId,
} from './provider-ids.js';
export type { CommonProviderOptions, AnyProvider } from '../core/provider.js';
