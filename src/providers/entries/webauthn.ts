// `authchart/providers/webauthn`: passkey and WebAuthn sign-in.
export { WebAuthn, Passkey, type WebAuthnConfig, type WebAuthnUserConfig, type RelyingParty } from '../webauthn.js';
