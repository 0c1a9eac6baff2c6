// Every built-in machine by name (the sign-in flows, the standard tail and the second-factor machine), for the diagrams in
// visualizations/ and the coverage checks. Eager on purpose: this is never on the sign-in path (the flow registry
// loads each flow lazily).
import type { AnyStateMachine } from 'xstate';
import { credentialsMachine } from '../flows/credentials/machine.js';
import { emailMachine } from '../flows/email/machine.js';
import { oauthMachine } from '../flows/oauth/machine.js';
import { secondFactorMachine } from '../flows/second-factor/machine.js';
import { signInMachine } from '../flows/signin/machine.js';
import { tokenRefreshMachine } from '../flows/tokens/machine.js';
import { backchannelLogoutMachine } from '../flows/logout/backchannel-machine.js';
import { rpLogoutMachine } from '../flows/logout/rp-machine.js';
import { webauthnMachine } from '../flows/webauthn/machine.js';
import { linkMachine } from '../flows/account/link-machine.js';
import { passwordSignInMachine } from '../flows/password/signin-machine.js';
import { recoveryMachine } from '../flows/password/recovery-machine.js';
import { signUpMachine } from '../flows/password/signup-machine.js';
import { changePasswordMachine } from '../flows/password/change-machine.js';
import { changeEmailMachine } from '../flows/password/change-email-machine.js';
import { invitationMachine } from '../flows/organizations/invitation-machine.js';
import { samlMachine } from '../flows/saml/machine.js';

export const machines: Record<string, AnyStateMachine> = {
  signin: signInMachine,
  credentials: credentialsMachine,
  'password-signin': passwordSignInMachine,
  'password-recovery': recoveryMachine,
  'password-signup': signUpMachine,
  'change-password': changePasswordMachine,
  'change-email': changeEmailMachine,
  oauth: oauthMachine,
  email: emailMachine,
  webauthn: webauthnMachine,
  'second-factor': secondFactorMachine,
  tokens: tokenRefreshMachine,
  'backchannel-logout': backchannelLogoutMachine,
  'rp-logout': rpLogoutMachine,
  link: linkMachine,
  invitation: invitationMachine,
  saml: samlMachine,
};
