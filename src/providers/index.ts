// Every built-in provider factory: credentials, generic OAuth/OIDC, and the catalogue presets.
export { Credentials, type CredentialsConfig, type CredentialsUserConfig } from './credentials.js';
export { OAuth, OIDC, definePreset, type OAuthConfig, type OIDCConfig, type OAuthUserConfig, type OIDCUserConfig, type OAuthProviderConfig } from './oauth.js';
export * from './catalogue/index.js';
export type { CommonProviderOptions, AnyProvider } from './types.js';
