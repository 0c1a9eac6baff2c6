// authchart/client: what a page imports to talk to authchart's routes, without a framework or server code.
// The passkey helpers live in their own module, so a bundle that does not use them leaves them out.
export {
  AuthClientError, configure, getCsrfToken, getProviders, getSession, signIn, signOut, updateSession,
  type ClientProvider, type ClientSession, type ClientUser, type SessionMessage, type SignInOptions, type SignInResult, type SignOutOptions,
} from './core.js';
export { createSessionStore, type SessionState, type SessionStatus, type SessionStore, type SessionStoreOptions } from './store.js';
export { passkeysSupported, registerPasskey, signInWithPasskey, type PasskeyOptions } from './passkey.js';
export { requestPasswordReset, resetPassword, type PasswordResetOptions } from './recovery.js';
export { changePassword, type ChangePasswordOptions } from './password-change.js';
export { changeEmail, confirmEmailChange, type ChangeEmailOptions } from './email-change.js';
export { signUp, type SignUpOptions } from './signup.js';
export { switchOrganization, type ClientOrganization } from './organizations.js';
