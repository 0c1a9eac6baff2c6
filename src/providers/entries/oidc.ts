// `authchart/providers/oidc`: the generic OAuth 2 and OpenID Connect factories and `definePreset`, without the
// catalogue, the e-mail senders or WebAuthn (an app that signs in with one identity provider loads only this).
export { OAuth, OIDC, definePreset, type OAuthConfig, type OIDCConfig, type OAuthUserConfig, type OIDCUserConfig, type OAuthProviderConfig } from '../oauth.js';
