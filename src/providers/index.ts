// Every built-in provider factory: credentials, e-mail, generic OAuth/OIDC, WebAuthn and the catalogue presets.
// Each kind but the catalogue has a subpath of its own (authchart/providers/oidc, /email, /webauthn, /credentials,
// from ./entries/): an app that imports one kind from there does not load the others.
export * from './entries/credentials.js';
export * from './password/index.js';
export * from './entries/oidc.js';
export * from './entries/email.js';
export * from './entries/webauthn.js';
export * from './catalogue/index.js';
export type {
  BuiltInProviderType, RedirectableProviderType, OAuthProviderType, OAuthProviderId, CredentialsProviderId, EmailProviderId, WebAuthnProviderId, ProviderId,
} from './provider-ids.js';
export type { CommonProviderOptions, AnyProvider } from '../core/provider.js';
